// SPDX-License-Identifier: GPL-2.0-only
/* A D3D12 game loop in miniature, for the Proton-class tests (Wine's d3d12 on
 * vkd3d, Wine's own dxgi): N frames into a DXGI flip swapchain, each one a
 * 4 KiB ReadFile of DATA (at offset 0, so any file of 4 KiB or more serves),
 * a command list that clears the back buffer and draws a triangle over it
 * (root constants for its colour), one ExecuteCommandLists, a Present, then
 * a fence Signal on the queue, SetEventOnCompletion and a WaitForSingleObject
 * on that event (the frame's GPU work done).  No external assets: the
 * shaders are HLSL compiled at start (frames.h).  Frames are paced by the
 * swapchain's frame latency waitable object (latency 1).
 * Wine's dxgi presents on a worker thread of its own, and the latency object
 * a Present arms is set once the present BEFORE it is done; its swapchain's
 * release drops the presents still queued to that worker.  So after the last
 * frame it makes one more Present, a flush (nothing drawn), and waits on the
 * latency object: then every frame's present has reached the Vulkan driver,
 * and the flush's own has or has not (the swapchain's release may drop it).
 * At exit it prints its own counters, the ground truth the tests compare the
 * trace against, one JSON line:
 *   {"frames":N,"presents":P,"reads":R,"read_bytes":B,"length":4096,
 *    "handle":H,"executes":E,"fence_waits":W,"fence_event":V,"flushes":F,
 *    "queue":Q,"fence":C,"cpu_signals":S}
 * (P: the frames' Presents that succeeded, the flush not counted; H: the
 * data file's handle, as the NT calls name it; E: its ExecuteCommandLists
 * calls; W: its waits for the frame's fence, each a WaitForSingleObject on
 * the event V that returned WAIT_OBJECT_0; F: 1, the flush Present made and
 * the last frame's present seen done; Q, C: the command queue's and the
 * fence's addresses, the objects its D3D12 calls name: frame i (from 1)
 * signals C to i on Q and asks for V at i; S: 1, after the flush the CPU
 * signalled C to N + 1 with ID3D12Fence::Signal and read it back).
 * With GATE, it waits after "ready" (device, queue and swapchain made: the
 * Vulkan driver is loaded) until the file GATE exists, at most 60 s ("-":
 * no gate).
 * With STOP (a run to attach to, t_proton_d3d12_attach), the frames also end
 * once the file STOP exists, and frame i reads block i mod B of DATA (B: its
 * size in 4 KiB blocks) at offset 4096 * (i mod B): a trace names each frame
 * it holds by its read's offset.  The counters then add "blocks":B.
 * usage: d3d12frames.exe N DATA [GATE [STOP]] */
#define COBJMACROS
#define WIN32_LEAN_AND_MEAN
#include <initguid.h>
#include <windows.h>
#include <d3d12.h>
#include <dxgi1_4.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frames.h"

#define BUFFERS 2

static void fail(const char *what, HRESULT hr)
{
	fprintf(stderr, "d3d12frames: %s: 0x%08lx\n", what, (unsigned long)hr);
	exit(1);
}

static void barrier(ID3D12GraphicsCommandList *cl, ID3D12Resource *r, D3D12_RESOURCE_STATES from,
		    D3D12_RESOURCE_STATES to)
{
	D3D12_RESOURCE_BARRIER b = { 0 };

	b.Type = D3D12_RESOURCE_BARRIER_TYPE_TRANSITION;
	b.Transition.pResource = r;
	b.Transition.Subresource = D3D12_RESOURCE_BARRIER_ALL_SUBRESOURCES;
	b.Transition.StateBefore = from;
	b.Transition.StateAfter = to;
	ID3D12GraphicsCommandList_ResourceBarrier(cl, 1, &b);
}

int main(int argc, char **argv)
{
	static char block[BLOCK];
	D3D12_COMMAND_QUEUE_DESC qd = { 0 };
	D3D12_DESCRIPTOR_HEAP_DESC hd = { 0 };
	DXGI_SWAP_CHAIN_DESC1 sd = { 0 };
	ID3D12Device *dev = NULL;
	ID3D12CommandQueue *queue = NULL;
	ID3D12CommandAllocator *alloc = NULL;
	ID3D12GraphicsCommandList *cl = NULL;
	ID3D12DescriptorHeap *heap = NULL;
	ID3D12Resource *back[BUFFERS] = { 0 };
	D3D12_CPU_DESCRIPTOR_HANDLE rtv[BUFFERS];
	ID3D12Fence *fence = NULL;
	D3D12_ROOT_PARAMETER rp = { 0 };
	D3D12_ROOT_SIGNATURE_DESC rsd = { 0 };
	D3D12_GRAPHICS_PIPELINE_STATE_DESC pd = { 0 };
	ID3DBlob *rsb = NULL, *vsb, *psb;
	ID3D12RootSignature *rs = NULL;
	ID3D12PipelineState *pso = NULL;
	D3D12_VIEWPORT vp = { 0, 0, 320, 240, 0, 1 };
	D3D12_RECT scissor = { 0, 0, 320, 240 };
	IDXGIFactory4 *factory = NULL;
	IDXGISwapChain1 *sc1 = NULL;
	IDXGISwapChain3 *sc = NULL;
	HANDLE latency, done_event;
	UINT rtv_step;
	HANDLE f;
	HWND w;
	HRESULT hr;
	long frames, presents = 0, reads = 0, done = 0, executes = 0, fence_waits = 0, flushes = 0;
	long cpu_signals = 0;
	long blocks = 1;
	LARGE_INTEGER size;
	long long read_bytes = 0;
	UINT64 fence_value = 0;
	const char *gate = argc > 3 && strcmp(argv[3], "-") ? argv[3] : NULL;
	const char *stop = argc > 4 ? argv[4] : NULL;

	if (argc < 3 || argc > 5 || (frames = atol(argv[1])) <= 0) {
		fprintf(stderr, "usage: d3d12frames.exe FRAMES DATA [GATE [STOP]]\n");
		return 2;
	}
	f = frames_open("d3d12frames", argv[2]);
	if (stop && GetFileSizeEx(f, &size) && size.QuadPart >= BLOCK)
		blocks = (long)(size.QuadPart / BLOCK);
	w = frames_window("d3d12frames");
	hr = D3D12CreateDevice(NULL, D3D_FEATURE_LEVEL_11_0, &IID_ID3D12Device, (void **)&dev);
	if (FAILED(hr))
		fail("D3D12CreateDevice", hr);
	qd.Type = D3D12_COMMAND_LIST_TYPE_DIRECT;
	hr = ID3D12Device_CreateCommandQueue(dev, &qd, &IID_ID3D12CommandQueue, (void **)&queue);
	if (FAILED(hr))
		fail("CreateCommandQueue", hr);
	hr = CreateDXGIFactory1(&IID_IDXGIFactory4, (void **)&factory);
	if (FAILED(hr))
		fail("CreateDXGIFactory1(IDXGIFactory4)", hr);
	sd.Width = 320;
	sd.Height = 240;
	sd.Format = DXGI_FORMAT_R8G8B8A8_UNORM;
	sd.SampleDesc.Count = 1;
	sd.BufferUsage = DXGI_USAGE_RENDER_TARGET_OUTPUT;
	sd.BufferCount = BUFFERS;
	sd.SwapEffect = DXGI_SWAP_EFFECT_FLIP_DISCARD;
	sd.Flags = DXGI_SWAP_CHAIN_FLAG_FRAME_LATENCY_WAITABLE_OBJECT;
	hr = IDXGIFactory4_CreateSwapChainForHwnd(factory, (IUnknown *)queue, w, &sd, NULL, NULL,
						  &sc1);
	if (FAILED(hr))
		fail("CreateSwapChainForHwnd", hr);
	hr = IDXGISwapChain1_QueryInterface(sc1, &IID_IDXGISwapChain3, (void **)&sc);
	if (FAILED(hr))
		fail("IDXGISwapChain3", hr);
	if (FAILED(IDXGISwapChain3_SetMaximumFrameLatency(sc, 1)) ||
	    !(latency = IDXGISwapChain3_GetFrameLatencyWaitableObject(sc)))
		fail("no frame latency waitable object", E_FAIL);
	hd.Type = D3D12_DESCRIPTOR_HEAP_TYPE_RTV;
	hd.NumDescriptors = BUFFERS;
	hr = ID3D12Device_CreateDescriptorHeap(dev, &hd, &IID_ID3D12DescriptorHeap, (void **)&heap);
	if (FAILED(hr))
		fail("CreateDescriptorHeap", hr);
	rtv_step = ID3D12Device_GetDescriptorHandleIncrementSize(dev, D3D12_DESCRIPTOR_HEAP_TYPE_RTV);
	/* the C binding returns the struct through a pointer (the vtable directly:
	 * mingw's macro for it needs WIDL_C_INLINE_WRAPPERS) */
	heap->lpVtbl->GetCPUDescriptorHandleForHeapStart(heap, &rtv[0]);
	for (int b = 0; b < BUFFERS; b++) {
		rtv[b].ptr = rtv[0].ptr + (SIZE_T)b * rtv_step;
		hr = IDXGISwapChain3_GetBuffer(sc, b, &IID_ID3D12Resource, (void **)&back[b]);
		if (FAILED(hr))
			fail("GetBuffer", hr);
		ID3D12Device_CreateRenderTargetView(dev, back[b], NULL, rtv[b]);
	}
	/* the draw: its colour as 4 root constants at b0 (frames_shader's cbuffer) */
	rp.ParameterType = D3D12_ROOT_PARAMETER_TYPE_32BIT_CONSTANTS;
	rp.Constants.Num32BitValues = 4;
	rp.ShaderVisibility = D3D12_SHADER_VISIBILITY_PIXEL;
	rsd.NumParameters = 1;
	rsd.pParameters = &rp;
	hr = D3D12SerializeRootSignature(&rsd, D3D_ROOT_SIGNATURE_VERSION_1, &rsb, NULL);
	if (FAILED(hr))
		fail("D3D12SerializeRootSignature", hr);
	hr = ID3D12Device_CreateRootSignature(dev, 0, ID3D10Blob_GetBufferPointer(rsb),
					      ID3D10Blob_GetBufferSize(rsb),
					      &IID_ID3D12RootSignature, (void **)&rs);
	if (FAILED(hr))
		fail("CreateRootSignature", hr);
	vsb = frames_compile("d3d12frames", "vs", "vs_5_0");
	psb = frames_compile("d3d12frames", "ps", "ps_5_0");
	pd.pRootSignature = rs;
	pd.VS.pShaderBytecode = ID3D10Blob_GetBufferPointer(vsb);
	pd.VS.BytecodeLength = ID3D10Blob_GetBufferSize(vsb);
	pd.PS.pShaderBytecode = ID3D10Blob_GetBufferPointer(psb);
	pd.PS.BytecodeLength = ID3D10Blob_GetBufferSize(psb);
	pd.BlendState.RenderTarget[0].RenderTargetWriteMask = D3D12_COLOR_WRITE_ENABLE_ALL;
	pd.SampleMask = UINT_MAX;
	pd.RasterizerState.FillMode = D3D12_FILL_MODE_SOLID;
	pd.RasterizerState.CullMode = D3D12_CULL_MODE_NONE;
	pd.RasterizerState.DepthClipEnable = TRUE;
	pd.PrimitiveTopologyType = D3D12_PRIMITIVE_TOPOLOGY_TYPE_TRIANGLE;
	pd.NumRenderTargets = 1;
	pd.RTVFormats[0] = DXGI_FORMAT_R8G8B8A8_UNORM;
	pd.SampleDesc.Count = 1;
	hr = ID3D12Device_CreateGraphicsPipelineState(dev, &pd, &IID_ID3D12PipelineState,
						      (void **)&pso);
	if (FAILED(hr))
		fail("CreateGraphicsPipelineState", hr);
	hr = ID3D12Device_CreateCommandAllocator(dev, D3D12_COMMAND_LIST_TYPE_DIRECT,
						 &IID_ID3D12CommandAllocator, (void **)&alloc);
	if (FAILED(hr))
		fail("CreateCommandAllocator", hr);
	hr = ID3D12Device_CreateCommandList(dev, 0, D3D12_COMMAND_LIST_TYPE_DIRECT, alloc, NULL,
					    &IID_ID3D12GraphicsCommandList, (void **)&cl);
	if (FAILED(hr))
		fail("CreateCommandList", hr);
	ID3D12GraphicsCommandList_Close(cl);
	hr = ID3D12Device_CreateFence(dev, 0, D3D12_FENCE_FLAG_NONE, &IID_ID3D12Fence,
				      (void **)&fence);
	if (FAILED(hr))
		fail("CreateFence", hr);
	done_event = CreateEventA(NULL, FALSE, FALSE, NULL);
	if (!done_event)
		fail("CreateEvent", HRESULT_FROM_WIN32(GetLastError()));
	frames_ready(gate);

	for (long i = 0; i < frames; i++) {
		static const FLOAT clear[4] = { 0.0f, 0.0f, 0.0f, 1.0f };
		FLOAT tint[4] = { (float)(i % 256) / 255.0f, 0.5f, 0.25f, 1.0f };
		UINT cur;

		WaitForSingleObject(latency, 5000);
		/* at offset 0, or block i mod B */
		frames_read(f, block, (DWORD)((i % blocks) * BLOCK), &reads, &read_bytes);
		tint[1] = (float)(unsigned char)block[i % BLOCK] / 255.0f;
		cur = IDXGISwapChain3_GetCurrentBackBufferIndex(sc);
		/* the previous frame's fence was waited for: the allocator is free */
		ID3D12CommandAllocator_Reset(alloc);
		ID3D12GraphicsCommandList_Reset(cl, alloc, NULL);
		barrier(cl, back[cur], D3D12_RESOURCE_STATE_PRESENT, D3D12_RESOURCE_STATE_RENDER_TARGET);
		ID3D12GraphicsCommandList_ClearRenderTargetView(cl, rtv[cur], clear, 0, NULL);
		ID3D12GraphicsCommandList_OMSetRenderTargets(cl, 1, &rtv[cur], FALSE, NULL);
		ID3D12GraphicsCommandList_SetGraphicsRootSignature(cl, rs);
		ID3D12GraphicsCommandList_SetPipelineState(cl, pso);
		ID3D12GraphicsCommandList_SetGraphicsRoot32BitConstants(cl, 0, 4, tint, 0);
		ID3D12GraphicsCommandList_RSSetViewports(cl, 1, &vp);
		ID3D12GraphicsCommandList_RSSetScissorRects(cl, 1, &scissor);
		ID3D12GraphicsCommandList_IASetPrimitiveTopology(cl,
								 D3D_PRIMITIVE_TOPOLOGY_TRIANGLELIST);
		ID3D12GraphicsCommandList_DrawInstanced(cl, 3, 1, 0, 0);
		barrier(cl, back[cur], D3D12_RESOURCE_STATE_RENDER_TARGET, D3D12_RESOURCE_STATE_PRESENT);
		if (FAILED(ID3D12GraphicsCommandList_Close(cl)))
			fail("command list Close", E_FAIL);
		ID3D12CommandQueue_ExecuteCommandLists(queue, 1, (ID3D12CommandList **)&cl);
		executes++;
		if (SUCCEEDED(IDXGISwapChain3_Present(sc, 0, 0)))
			presents++;
		fence_value++;
		if (FAILED(ID3D12CommandQueue_Signal(queue, fence, fence_value)) ||
		    FAILED(ID3D12Fence_SetEventOnCompletion(fence, fence_value, done_event)))
			fail("fence Signal / SetEventOnCompletion", E_FAIL);
		if (WaitForSingleObject(done_event, 5000) == WAIT_OBJECT_0)
			fence_waits++;
		done++;
		if (stop && GetFileAttributesA(stop) != INVALID_FILE_ATTRIBUTES)
			break;
	}
	/* the latency object armed by the last frame's Present: the frame before
	 * presented; the flush's: the last frame presented */
	WaitForSingleObject(latency, 5000);
	if (SUCCEEDED(IDXGISwapChain3_Present(sc, 0, 0)) &&
	    WaitForSingleObject(latency, 5000) == WAIT_OBJECT_0)
		flushes++;
	/* a fence signalled by the CPU (vkd3d's Signal tail-calls its worker) */
	if (SUCCEEDED(ID3D12Fence_Signal(fence, fence_value + 1)) &&
	    ID3D12Fence_GetCompletedValue(fence) == fence_value + 1)
		cpu_signals++;
	printf("{\"frames\":%ld,\"presents\":%ld,\"reads\":%ld,\"read_bytes\":%lld,"
	       "\"length\":%d,\"handle\":%llu,\"executes\":%ld,\"fence_waits\":%ld,"
	       "\"fence_event\":%llu,\"flushes\":%ld,\"queue\":%llu,\"fence\":%llu,\"cpu_signals\":%ld%s",
	       done, presents, reads, read_bytes, BLOCK, (unsigned long long)(uintptr_t)f,
	       executes, fence_waits, (unsigned long long)(uintptr_t)done_event, flushes,
	       (unsigned long long)(uintptr_t)queue, (unsigned long long)(uintptr_t)fence,
	       cpu_signals, stop ? "" : "}\n");
	if (stop)
		printf(",\"blocks\":%ld}\n", blocks);
	fflush(stdout);
	CloseHandle(latency);
	CloseHandle(done_event);
	ID3D12Fence_Release(fence);
	ID3D12PipelineState_Release(pso);
	ID3D12RootSignature_Release(rs);
	ID3D10Blob_Release(rsb);
	ID3D10Blob_Release(vsb);
	ID3D10Blob_Release(psb);
	ID3D12GraphicsCommandList_Release(cl);
	ID3D12CommandAllocator_Release(alloc);
	for (int b = 0; b < BUFFERS; b++)
		ID3D12Resource_Release(back[b]);
	ID3D12DescriptorHeap_Release(heap);
	IDXGISwapChain3_Release(sc);
	IDXGISwapChain1_Release(sc1);
	IDXGIFactory4_Release(factory);
	ID3D12CommandQueue_Release(queue);
	ID3D12Device_Release(dev);
	CloseHandle(f);
	return presents == done && reads == done && fence_waits == done && flushes == 1 &&
	       cpu_signals == 1 ? 0 : 1;
}
