/* SPDX-License-Identifier: GPL-2.0-only */
/* Inside the stacks wing: a process's module table (stacks.c) and the
 * unwinder over it (unwind.c). */
#ifndef KATRA_RECORD_STACKS_INT_H
#define KATRA_RECORD_STACKS_INT_H

#include <stdbool.h>
#include <stdint.h>

#include <katra/wire.h>

#include "record/uprobes/winenames.h"

struct katra_peu_image;

#define STK_PATH_MAX 512
#define STK_MAX_FRAMES 96

/* A file of a process's code, opened at its first stack */
struct stk_file {
	uint64_t dev, ino;
	int fd;
	uint32_t module_id; /* 0 until a frame names it */
	bool pe;            /* starts with "MZ": a PE image (Wine) */
	bool pe_read;       /* blob read (or tried) */
	struct katra_blob blob; /* a PE's bytes, read at its first walk */
	bool wine_read;         /* ntdll.so: wine_call_ret read (or tried) */
	uint64_t wine_call_ret; /* ntdll.so: the syscall dispatcher's call's
				 * return address (its vaddr), or 0 */
	char path[STK_PATH_MAX]; /* as the process's maps name it */
};

/* A file-backed mapping */
struct stk_map {
	uint64_t start, end, pgoff;
	uint32_t file; /* index in the wing's files */
};

struct stk_proc {
	uint32_t pid;
	struct stk_map *maps;
	uint32_t nmaps;
	uint64_t read_ns;  /* when its maps were last read */
	uint64_t vm_pages; /* its size then (statm): a mapping added changes it */
	bool read_failed;
	void *dwfl; /* Dwfl *, made at the first unwind */
	uint32_t *mod_files; /* reported module i -> file index */
	void **mods;         /* Dwfl_Module * of each reported file */
	uint32_t nmods;
	void *walk; /* the unwind in progress (unwind.c) */
	struct katra_peu_image *pe_imgs; /* its PE images (pestack.c) */
	uint32_t *pe_files;              /* their file indexes */
	uint32_t npe;
	bool pe_done; /* pe_imgs made */
};

struct stk_frame {
	uint32_t file;    /* file index, or UINT32_MAX: no module */
	uint64_t address; /* pc less the module's bias (or the pc) */
};

/* A distinct stack, as written */
struct stk_stack {
	uint64_t hash;
	uint64_t id;
	uint32_t nframes, nkernel;
	bool truncated;
	struct stk_frame *frames;
	uint64_t *kernel;
};

/* stacknames.c: a Symbols record per module the stacks cite, its frames'
 * addresses named from the file the process mapped (files[i].fd), by the
 * replay's naming (symbols/elfsyms.h); *named and *unnamed count them */
struct katra_writer;
int stk_write_symbols(struct stk_file *files, const struct stk_stack *stacks,
		      size_t nstacks, struct katra_writer *w, uint64_t *named, uint64_t *unnamed);

/* Unwinds rec in p: up to STK_MAX_FRAMES frames, innermost first; *truncated
 * when the walk stopped before the outermost frame.  files: the wing's. */
int stk_unwind(struct stk_proc *p, struct stk_file *files, const struct katra_stack_rec *rec,
	       bool fp_only, struct stk_frame *out, uint32_t *n, bool *truncated);
void stk_proc_release(struct stk_proc *p);

/* pestack.c: a PE file's bytes (NULL when unreadable or not a PE) */
const struct katra_blob *stk_pe_blob(struct stk_file *f);
/* When rec's pc is in one of p's PE images: the Windows x64 walk (.pdata)
 * from its registers and copy, true; false (nothing written) otherwise */
bool stk_pe_unwind(struct stk_proc *p, struct stk_file *files, const struct katra_stack_rec *rec,
		   struct stk_frame *out, uint32_t *n, bool *truncated);
/* A Wine thread's Windows half (rec's pe_frame and its copy) after the
 * Unix frames out[0..*n) that end in ntdll.so (wire.h); nothing changed
 * when rec has none or it does not fit */
void stk_pe_join(struct stk_proc *p, struct stk_file *files, const struct katra_stack_rec *rec,
		 struct stk_frame *out, uint32_t *n, bool *truncated);
void stk_pe_release(struct stk_proc *p);

#endif
