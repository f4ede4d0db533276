// SPDX-License-Identifier: GPL-2.0-only
/* What the Proton-class frames programs (d3d11frames.c, d3d12frames.c)
 * share: the data file, the window, the gate, each frame's message pump and
 * its 4 KiB ReadFile at a given offset (a synchronous read). */
#ifndef KATRA_PROTON_FRAMES_H
#define KATRA_PROTON_FRAMES_H

#include <windows.h>
#include <d3dcompiler.h>
#include <stdio.h>
#include <stdlib.h>

#define BLOCK 4096

static LRESULT CALLBACK frames_wndproc(HWND w, UINT m, WPARAM wp, LPARAM lp)
{
	return DefWindowProcA(w, m, wp, lp);
}

/* DATA opened for reading, or exit 1 saying why */
static HANDLE frames_open(const char *prog, const char *path)
{
	HANDLE f = CreateFileA(path, GENERIC_READ, FILE_SHARE_READ, NULL, OPEN_EXISTING, 0, NULL);

	if (f == INVALID_HANDLE_VALUE) {
		fprintf(stderr, "%s: cannot open %s: error %lu\n", prog, path, GetLastError());
		exit(1);
	}
	return f;
}

/* a visible 320x240 window of class and title `name` */
static HWND frames_window(const char *name)
{
	WNDCLASSA wc = { 0 };

	wc.lpfnWndProc = frames_wndproc;
	wc.hInstance = GetModuleHandleA(NULL);
	wc.lpszClassName = name;
	RegisterClassA(&wc);
	return CreateWindowA(name, name, WS_OVERLAPPEDWINDOW | WS_VISIBLE, 0, 0, 320, 240, NULL,
			     NULL, wc.hInstance, NULL);
}

/* "ready" on stdout, then (gate: not NULL) wait until the file gate exists,
 * at most 60 s */
static void frames_ready(const char *gate)
{
	printf("ready\n");
	fflush(stdout);
	for (int i = 0; gate && i < 6000; i++) {
		if (GetFileAttributesA(gate) != INVALID_FILE_ATTRIBUTES)
			break;
		Sleep(10);
	}
}

/* the frame's draw: a full-screen triangle in the colour `tint` (a constant
 * buffer in D3D11, root constants at b0 in D3D12) */
static const char frames_shader[] =
	"cbuffer frame : register(b0) { float4 tint; };\n"
	"float4 vs(uint id : SV_VertexID) : SV_Position {\n"
	"  float2 p = float2((id << 1) & 2, id & 2);\n"
	"  return float4(p * float2(2, -2) + float2(-1, 1), 0, 1);\n"
	"}\n"
	"float4 ps() : SV_Target { return tint; }\n";

/* entry of frames_shader compiled for target (HLSL compiled at start by
 * d3dcompiler_47, Wine's builtin), or exit 1 saying why */
static ID3DBlob *frames_compile(const char *prog, const char *entry, const char *target)
{
	ID3DBlob *code = NULL, *err = NULL;
	HRESULT hr = D3DCompile(frames_shader, sizeof(frames_shader) - 1, "frames", NULL, NULL,
				entry, target, 0, 0, &code, &err);

	if (FAILED(hr)) {
		fprintf(stderr, "%s: D3DCompile %s: 0x%08lx %s\n", prog, entry, (unsigned long)hr,
			err ? (const char *)ID3D10Blob_GetBufferPointer(err) : "");
		exit(1);
	}
	return code;
}

/* the frame's messages dispatched, then BLOCK bytes of f at offset read
 * into block, counted in *reads and *read_bytes when the read succeeds */
static void frames_read(HANDLE f, char *block, DWORD offset, long *reads, long long *read_bytes)
{
	OVERLAPPED at = { .Offset = offset };
	DWORD got = 0;
	MSG m;

	while (PeekMessageA(&m, NULL, 0, 0, PM_REMOVE))
		DispatchMessageA(&m);
	if (ReadFile(f, block, BLOCK, &got, &at)) {
		(*reads)++;
		*read_bytes += got;
	}
}

#endif
