// SPDX-License-Identifier: GPL-2.0-only
/* A Windows program whose call chain the PE unwinder must name exactly:
 * main -> chain_a -> chain_b -> chain_c -> leaf, built without frame
 * pointers (-O2 -fomit-frame-pointer), each function a frame of its own
 * shape: chain_a a large fixed frame (UWOP_ALLOC_LARGE), chain_b an alloca
 * (a frame register: UWOP_SET_FPREG), chain_c doubles live across its call
 * (UWOP_SAVE_XMM128), leaf a CONTEXT on its stack.  At the leaf,
 * RtlCaptureContext; then the file named by argv[1] gets (little-endian):
 * "KPEU", u32 1, u64 the module's base, u64 rip, u64 rax..r15 (16, the
 * CONTEXT's order), u64 the copy's address (rsp), u32 its length, then the
 * stack's bytes [rsp, rsp + length): 16 KiB at most, never past the
 * stack's base.  With "fault" after it, the leaf calls leaf_nopdata, an
 * assembly leaf without .pdata, whose ud2 a vectored exception handler
 * dumps the same way (the faulting context: rip inside leaf_nopdata, its
 * return address at [rsp]).  With "qsort", the leaf sorts through
 * msvcrt.dll's qsort (Wine's own PE build) and the comparison function
 * dumps: a walk through two modules.  After the stack's bytes, the
 * process's modules: u32 count, then u64 base and char name[64] (the
 * file's name, NUL-padded) each.  Exit status 0 when the file was
 * written. */
#define _WIN32_WINNT 0x0602 /* GetCurrentThreadStackLimits */
#include <windows.h>
#include <psapi.h>
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOINLINE __attribute__((noinline, noclone))

static const char *out_path;
static volatile int sink = 1;
static int written;

/* The dump of ctx (the layout above) */
static void write_dump(const CONTEXT *ctx)
{
	ULONG_PTR low, high;
	GetCurrentThreadStackLimits(&low, &high);
	uint64_t len = (uint64_t)high - ctx->Rsp;
	if (len > 16384)
		len = 16384;
	uint64_t base = (uint64_t)(uintptr_t)GetModuleHandleA(NULL);
	const uint64_t regs[16] = { ctx->Rax, ctx->Rcx, ctx->Rdx, ctx->Rbx, ctx->Rsp, ctx->Rbp,
				    ctx->Rsi, ctx->Rdi, ctx->R8,  ctx->R9,  ctx->R10, ctx->R11,
				    ctx->R12, ctx->R13, ctx->R14, ctx->R15 };
	uint32_t version = 1, len32 = (uint32_t)len;
	uint64_t rip = ctx->Rip, sp = ctx->Rsp;
	FILE *f = fopen(out_path, "wb");
	if (!f)
		return;
	int ok = fwrite("KPEU", 4, 1, f) == 1 && fwrite(&version, 4, 1, f) == 1 &&
		 fwrite(&base, 8, 1, f) == 1 && fwrite(&rip, 8, 1, f) == 1 &&
		 fwrite(regs, 8, 16, f) == 16 && fwrite(&sp, 8, 1, f) == 1 &&
		 fwrite(&len32, 4, 1, f) == 1 &&
		 fwrite((const void *)(uintptr_t)sp, 1, len32, f) == len32;
	/* the process's modules: u32 count, then (u64 base, char name[64]) */
	HMODULE mods[64];
	DWORD need = 0;
	uint32_t nmods = 0;
	if (K32EnumProcessModules(GetCurrentProcess(), mods, sizeof(mods), &need))
		nmods = need / sizeof(HMODULE) < 64 ? need / sizeof(HMODULE) : 64;
	ok = ok && fwrite(&nmods, 4, 1, f) == 1;
	for (uint32_t i = 0; ok && i < nmods; i++) {
		char path[MAX_PATH] = "", name[64] = "";
		uint64_t mb = (uint64_t)(uintptr_t)mods[i];
		GetModuleFileNameA(mods[i], path, sizeof(path));
		const char *slash = strrchr(path, '\\');
		snprintf(name, sizeof(name), "%.63s", slash ? slash + 1 : path);
		ok = fwrite(&mb, 8, 1, f) == 1 && fwrite(name, 64, 1, f) == 1;
	}
	if (fclose(f) == 0 && ok)
		written = 1;
}

/* A leaf without .pdata (no .seh_proc: the linker makes no entry for it):
 * a ud2 the vectored handler below dumps and steps over. */
int leaf_nopdata(int x);
__asm__(".text\n"
	".globl leaf_nopdata\n"
	".def leaf_nopdata; .scl 2; .type 32; .endef\n"
	"leaf_nopdata:\n"
	"\tud2\n"
	"\tleal 1(%rcx), %eax\n"
	"\tret\n");

static LONG CALLBACK on_fault(EXCEPTION_POINTERS *e)
{
	if (e->ExceptionRecord->ExceptionCode != EXCEPTION_ILLEGAL_INSTRUCTION)
		return EXCEPTION_CONTINUE_SEARCH;
	write_dump(e->ContextRecord);
	e->ContextRecord->Rip += 2; /* past the ud2 */
	return EXCEPTION_CONTINUE_EXECUTION;
}

static int fault_mode, qsort_mode;

/* qsort's comparison: called from msvcrt.dll (Wine's own PE build), it
 * dumps at its first call */
NOINLINE static int compare(const void *a, const void *b)
{
	CONTEXT ctx;

	if (!written) {
		RtlCaptureContext(&ctx);
		write_dump(&ctx);
	}
	return *(const int *)a - *(const int *)b + sink - 1;
}

NOINLINE static int leaf(int x)
{
	CONTEXT ctx;

	if (fault_mode)
		return leaf_nopdata(x) + sink;
	if (qsort_mode) {
		int v[4] = { x, 3, 2, 1 };
		qsort(v, 4, sizeof(int), compare);
		return v[0] + sink;
	}
	RtlCaptureContext(&ctx);
	write_dump(&ctx);
	return x + sink;
}

NOINLINE static double chain_c(double v, int n)
{
	double a = v * 1.5, b = v + 2.25, c = v * v;
	int r = leaf(n);

	return a * r + b * c + r;
}

NOINLINE static int chain_b(int n)
{
	char *buf = alloca((size_t)n + 64);

	memset(buf, n, (size_t)n + 64);
	double d = chain_c((double)buf[n], n);
	return (int)d + buf[3] + sink;
}

NOINLINE static int chain_a(int n)
{
	volatile int arr[300];

	for (int i = 0; i < 300; i++)
		arr[i] = i * n;
	int r = chain_b(n);
	return r + arr[n % 300];
}

int main(int argc, char **argv)
{
	if (argc < 2 || argc > 3 ||
	    (argc == 3 && strcmp(argv[2], "fault") && strcmp(argv[2], "qsort"))) {
		fprintf(stderr, "usage: chains.exe OUTPUT [fault|qsort]\n");
		return 2;
	}
	out_path = argv[1];
	if (argc == 3) {
		fault_mode = !strcmp(argv[2], "fault");
		qsort_mode = !fault_mode;
		if (fault_mode)
			AddVectoredExceptionHandler(1, on_fault);
		argc = 2; /* the same n either way */
	}
	int r = chain_a(argc + 30 + sink - 1); /* not a constant the compiler could propagate */
	printf("%d\n", r);
	return written ? 0 : 1;
}
