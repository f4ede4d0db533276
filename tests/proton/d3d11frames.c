// SPDX-License-Identifier: GPL-2.0-only
/* A D3D11 game loop in miniature, for the Proton-class tests: N frames into a
 * DXGI swapchain, each one a 4 KiB ReadFile of DATA (at offset 0, so any file
 * of 4 KiB or more serves), a constant-buffer update, a draw and a Present.
 * No external assets: the shaders are HLSL compiled at start (d3dcompiler_47,
 * Wine's builtin).  Frames are paced by the swapchain's frame latency
 * waitable object (latency 1: each frame waits until the previous one was
 * presented), and it waits once more after the last, so every Present has
 * reached the Vulkan driver (DXVK presents on a thread of its own) before it
 * exits.  At exit it prints its own counters, the ground truth the
 * tests compare the trace against, one JSON line:
 *   {"frames":N,"presents":P,"reads":R,"read_bytes":B,"length":4096,"handle":H}
 * (H: the data file's handle, as the NT calls name it).
 * With GATE, it waits after "ready" (device, swapchain and shaders made: the
 * Vulkan driver is loaded) until the file GATE exists, at most 60 s ("-":
 * no gate).
 * With STOP (a run to attach to, t_proton_attach), the frames also end once
 * the file STOP exists, and frame i reads block i mod B of DATA (B: its size
 * in 4 KiB blocks) at offset 4096 * (i mod B): a trace names each frame it
 * holds by its read's offset.  The counters then add "blocks":B.
 * usage: d3d11frames.exe N DATA [GATE [STOP]] */
#define COBJMACROS
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#include <d3d11.h>
#include <dxgi1_3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frames.h"

/* IID_IDXGISwapChain2 (dxgi1_3.h), which mingw's libdxguid lacks */
static const GUID iid_swapchain2 = { 0xa8be2ac4, 0x199f, 0x4946,
				     { 0xb3, 0x31, 0x79, 0x59, 0x9f, 0xb9, 0x8d, 0xe7 } };

int main(int argc, char **argv)
{
	static char block[BLOCK];
	DXGI_SWAP_CHAIN_DESC sd = { 0 };
	D3D11_BUFFER_DESC bd = { 0 };
	ID3D11Device *dev = NULL;
	ID3D11DeviceContext *ctx = NULL;
	IDXGISwapChain *sc = NULL;
	IDXGISwapChain2 *sc2 = NULL;
	HANDLE latency;
	ID3D11Texture2D *back = NULL;
	ID3D11RenderTargetView *rtv = NULL;
	ID3D11VertexShader *vs = NULL;
	ID3D11PixelShader *ps = NULL;
	ID3D11Buffer *cb = NULL;
	ID3DBlob *vsb, *psb;
	D3D11_VIEWPORT vp = { 0, 0, 320, 240, 0, 1 };
	HANDLE f;
	HWND w;
	HRESULT hr;
	long frames, presents = 0, reads = 0, done = 0, blocks = 1;
	long long read_bytes = 0;
	LARGE_INTEGER size;
	const char *gate = argc > 3 && strcmp(argv[3], "-") ? argv[3] : NULL;
	const char *stop = argc > 4 ? argv[4] : NULL;

	if (argc < 3 || argc > 5 || (frames = atol(argv[1])) <= 0) {
		fprintf(stderr, "usage: d3d11frames.exe FRAMES DATA [GATE [STOP]]\n");
		return 2;
	}
	f = frames_open("d3d11frames", argv[2]);
	if (stop && GetFileSizeEx(f, &size) && size.QuadPart >= BLOCK)
		blocks = (long)(size.QuadPart / BLOCK);
	w = frames_window("d3d11frames");
	sd.BufferDesc.Width = 320;
	sd.BufferDesc.Height = 240;
	sd.BufferDesc.Format = DXGI_FORMAT_R8G8B8A8_UNORM;
	sd.SampleDesc.Count = 1;
	sd.BufferUsage = DXGI_USAGE_RENDER_TARGET_OUTPUT;
	sd.BufferCount = 2;
	sd.OutputWindow = w;
	sd.Windowed = TRUE;
	sd.SwapEffect = DXGI_SWAP_EFFECT_FLIP_DISCARD;
	sd.Flags = DXGI_SWAP_CHAIN_FLAG_FRAME_LATENCY_WAITABLE_OBJECT;
	hr = D3D11CreateDeviceAndSwapChain(NULL, D3D_DRIVER_TYPE_HARDWARE, NULL, 0, NULL, 0,
					   D3D11_SDK_VERSION, &sd, &sc, &dev, NULL, &ctx);
	if (FAILED(hr)) {
		fprintf(stderr, "d3d11frames: D3D11CreateDeviceAndSwapChain: 0x%08lx\n",
			(unsigned long)hr);
		return 1;
	}
	if (FAILED(IDXGISwapChain_QueryInterface(sc, &iid_swapchain2, (void **)&sc2)) ||
	    FAILED(IDXGISwapChain2_SetMaximumFrameLatency(sc2, 1)) ||
	    !(latency = IDXGISwapChain2_GetFrameLatencyWaitableObject(sc2))) {
		fprintf(stderr, "d3d11frames: no frame latency waitable object\n");
		return 1;
	}
	IDXGISwapChain_GetBuffer(sc, 0, &IID_ID3D11Texture2D, (void **)&back);
	ID3D11Device_CreateRenderTargetView(dev, (ID3D11Resource *)back, NULL, &rtv);
	vsb = frames_compile("d3d11frames", "vs", "vs_4_0");
	psb = frames_compile("d3d11frames", "ps", "ps_4_0");
	ID3D11Device_CreateVertexShader(dev, ID3D10Blob_GetBufferPointer(vsb),
					ID3D10Blob_GetBufferSize(vsb), NULL, &vs);
	ID3D11Device_CreatePixelShader(dev, ID3D10Blob_GetBufferPointer(psb),
				       ID3D10Blob_GetBufferSize(psb), NULL, &ps);
	bd.ByteWidth = 16;
	bd.Usage = D3D11_USAGE_DEFAULT;
	bd.BindFlags = D3D11_BIND_CONSTANT_BUFFER;
	ID3D11Device_CreateBuffer(dev, &bd, NULL, &cb);
	if (!rtv || !vs || !ps || !cb) {
		fprintf(stderr, "d3d11frames: creating the pipeline failed\n");
		return 1;
	}
	frames_ready(gate);

	for (long i = 0; i < frames; i++) {
		float tint[4] = { (float)(i % 256) / 255.0f, 0.5f, 0.25f, 1.0f };

		WaitForSingleObject(latency, 5000);
		/* at offset 0, or block i mod B */
		frames_read(f, block, (DWORD)((i % blocks) * BLOCK), &reads, &read_bytes);
		tint[1] = (float)(unsigned char)block[i % BLOCK] / 255.0f;
		ID3D11DeviceContext_UpdateSubresource(ctx, (ID3D11Resource *)cb, 0, NULL, tint, 0, 0);
		ID3D11DeviceContext_OMSetRenderTargets(ctx, 1, &rtv, NULL);
		ID3D11DeviceContext_RSSetViewports(ctx, 1, &vp);
		ID3D11DeviceContext_IASetPrimitiveTopology(ctx, D3D11_PRIMITIVE_TOPOLOGY_TRIANGLELIST);
		ID3D11DeviceContext_VSSetShader(ctx, vs, NULL, 0);
		ID3D11DeviceContext_PSSetShader(ctx, ps, NULL, 0);
		ID3D11DeviceContext_PSSetConstantBuffers(ctx, 0, 1, &cb);
		ID3D11DeviceContext_Draw(ctx, 3, 0);
		if (SUCCEEDED(IDXGISwapChain_Present(sc, 0, 0)))
			presents++;
		done++;
		if (stop && GetFileAttributesA(stop) != INVALID_FILE_ATTRIBUTES)
			break;
	}
	WaitForSingleObject(latency, 5000); /* the last frame presented */
	printf("{\"frames\":%ld,\"presents\":%ld,\"reads\":%ld,\"read_bytes\":%lld,"
	       "\"length\":%d,\"handle\":%llu%s",
	       done, presents, reads, read_bytes, BLOCK, (unsigned long long)(uintptr_t)f,
	       stop ? "" : "}\n");
	if (stop)
		printf(",\"blocks\":%ld}\n", blocks);
	fflush(stdout);
	ID3D11DeviceContext_ClearState(ctx);
	CloseHandle(latency);
	IDXGISwapChain2_Release(sc2);
	IDXGISwapChain_Release(sc);
	ID3D11DeviceContext_Release(ctx);
	ID3D11Device_Release(dev);
	CloseHandle(f);
	return presents == done && reads == done ? 0 : 1;
}
