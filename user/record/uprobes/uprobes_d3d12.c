// SPDX-License-Identifier: GPL-2.0-only
/* The D3D12 methods vkd3d implements, probed in the PE DLL that holds vkd3d
 * (Wine's wined3d.dll; vkd3d-proton's d3d12core.dll), found by the COFF
 * symbols of that very file (pesyms.h): the file offsets a uprobe needs,
 * since Wine maps a DLL whose sections are page-aligned in the file
 * straight from it.  A DLL without those symbols (stripped) says so and
 * gets no probe (bpf/d3d12.bpf.c: the programs).  A method's returns are
 * uprobes on its exits (pexits.h), never a uretprobe: in PE code its
 * trampoline kills a Wine program. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "pe/pesyms.h"
#include "pexits.h"
#include "uprobes_int.h"

/* What one capture spends on the DLLs a traced process maps (each new
 * inode named like one is read whole): a file of at most D3D12_FILE_MAX
 * bytes, held one at a time; at most D3D12_FILES_MAX of them read (a
 * capture sees two or three: Wine's own and the prefix's copy), each method
 * decoded within KATRA_PE_DECODE_MAX bytes (pexits.h), at most
 * D3D12_UPROBES_MAX uprobes a file (Wine 10's: 16).  A cap reached is said
 * in the header's notes (up_failed). */
#define D3D12_FILE_MAX (256u << 20)
#define D3D12_FILES_MAX 8
#define D3D12_UPROBES_MAX 64

/* vkd3d's names (bpf/d3d12.bpf.c: "up_" + the name) */
static const char *const d3d12_methods[] = {
	"d3d12_command_queue_ExecuteCommandLists", "d3d12_command_queue_Signal",
	"d3d12_command_queue_Wait", "d3d12_fence_SetEventOnCompletion", "d3d12_fence_Signal",
};
#define NMETHODS (sizeof(d3d12_methods) / sizeof(d3d12_methods[0]))

bool up_is_d3d12_dll(const char *path)
{
	const char *b = up_base_name(path);

	return !strcasecmp(b, "wined3d.dll") || !strcasecmp(b, "d3d12core.dll");
}

static const char *pesyms_why(int rc)
{
	switch (rc) {
	case 0: return "its COFF symbols name none of vkd3d's D3D12 methods";
	case -ENOEXEC: return "not a PE32+ file";
	case -ENOENT: return "no COFF symbol table (a stripped DLL): vkd3d's methods cannot be found";
	case -EFBIG: return "a COFF symbol table too large to read";
	case -ENOTSUP: return "its code is not page-aligned in the file: the loader copies it, "
			      "and a uprobe on the file would never fire";
	default: return "the file could not be read";
	}
}

/* The D3D12 DLLs this capture has looked at. */
static unsigned d3d12_files(const struct katra_uprobes *u)
{
	unsigned n = 0;

	for (size_t i = 0; i < u->nfiles; i++)
		n += (u->files[i].what & FILE_D3D12) != 0;
	return n;
}

int up_probe_d3d12(struct katra_uprobes *u, uint32_t pid, const char *path, int fd,
		   const struct stat *st)
{
	unsigned seen = d3d12_files(u);
	struct probed_file *f;
	struct katra_blob b = { 0 };
	uint64_t offs[NMETHODS];
	char label[160];
	int n = 0, rc;

	if (seen > D3D12_FILES_MAX)
		return 0; /* said once, at the first one past the cap */
	f = up_add_file(u, st, path, FILE_D3D12);
	if (!f)
		return -ENOMEM;
	if (seen == D3D12_FILES_MAX) {
		snprintf(label, sizeof(label), "%.96s:D3D12", up_base_name(path));
		up_failed(u, label, "%s and any later one: not read (more than %d DLLs holding "
			  "vkd3d in one capture)", path, D3D12_FILES_MAX);
		f->what |= FILE_SKIPPED;
		f->why = "more DLLs holding vkd3d than one capture reads";
		return 0;
	}
	rc = katra_blob_read_fd(fd, D3D12_FILE_MAX, &b);
	if (!rc)
		rc = katra_pe_coff_functions(&b, d3d12_methods, NMETHODS, offs);
	if (rc <= 0) {
		katra_blob_free(&b);
		snprintf(label, sizeof(label), "%.96s:D3D12", up_base_name(path));
		up_failed(u, label, "%s: %s", path, pesyms_why(rc));
		f->what |= FILE_SKIPPED;
		f->why = pesyms_why(rc);
		return 0;
	}
	up_via(u, fd, path); /* probed through the file read */
	up_batch_begin(u); /* one uprobe_multi link per program, where they work */
	for (size_t i = 0; i < NMETHODS; i++) {
		struct katra_pe_exit exits[KATRA_PE_EXITS_MAX];
		uint32_t nexits = 0;
		char prog[64];
		snprintf(label, sizeof(label), "%.96s:%.60s", up_base_name(path), d3d12_methods[i]);
		if (offs[i] == UINT64_MAX) {
			up_failed(u, label, "no such COFF symbol in %s", path);
			continue;
		}
		/* the exits first: a call is seen whole or not at all */
		rc = katra_pe_exits(&b, offs[i], exits, &nexits);
		if (rc) {
			up_failed(u, label, "its exits in %s are unknown (%s): no probe, its calls "
				  "would have no end", path, rc == -E2BIG ?
				  "more than the bounds: 32 exits, 16 ranges, 256 KiB decoded" :
				  rc == -ENOMEM ? "out of memory" : rc == -ELIBACC ?
				  "libcapstone not loadable" : "code or .pdata not decoded");
			continue;
		}
		if (n + nexits + 1 > D3D12_UPROBES_MAX) {
			up_failed(u, label, "no probe: its %u exits would pass %d uprobes in %s",
				  nexits, D3D12_UPROBES_MAX, path);
			continue;
		}
		unsigned done = 0;
		for (uint32_t k = 0; k < nexits; k++)
			done += !up_attach_at(u, label, exits[k].kind == KATRA_PE_EXIT_JMP ?
					      "ur_d3d12_jmp" : "ur_d3d12_ret", path, exits[k].off,
					      false);
		if (done < nexits)
			continue; /* named by up_failed: an exit unprobed, no entry */
		n += (int)done;
		snprintf(prog, sizeof(prog), "up_%s", d3d12_methods[i]);
		if (!up_attach_at(u, label, prog, path, offs[i], false))
			n++;
	}
	n -= (int)up_batch_end(u);
	up_via_end(u);
	katra_blob_free(&b);
	f->nprobes = (unsigned)(n > 0 ? n : 0);
	/* said as it happens (the header's notes are written before it) */
	char root[PATH_MAX], link[64];
	snprintf(link, sizeof(link), "/proc/%u/root", pid);
	ssize_t rl = pid ? readlink(link, root, sizeof(root) - 1) : -1;
	if (rl > 0)
		root[rl] = '\0';
	if (n > 0 && !u->o.quiet)
		fprintf(stderr, "katra-record: layer d3d12: %d uprobes on %s in %s\n", n,
			up_base_name(path), rl > 0 ? root : "/");
	return n;
}
