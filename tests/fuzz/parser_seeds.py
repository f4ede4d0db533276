#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Seeds for the parser fuzzers (fuzz_elf.c, fuzz_pe.c, fuzz_wineserver.c,
fuzz_unixcalls.c, fuzz_pesyms.c, fuzz_peunwind.c):
small well-formed files of each kind, written to
DIR/{elf,pe,wineserver,unixcalls,pesyms,peunwind}/, and PE files whose 96 sections
each cover the whole file (a parser that walks each section's bytes, or
every section per lookup, is quadratic on them).
Usage: parser_seeds.py DIR
       parser_seeds.py --overlapping SIZE FILE   (a sparse PE of SIZE bytes)"""
import os
import struct
import sys

PT_LOAD, PF_X, PF_R = 1, 1, 4
SHT_PROGBITS, SHT_STRTAB, SHT_DYNSYM, SHT_NOBITS = 1, 3, 11, 8


def elf_header(etype, phnum, shoff, shnum):
    ident = b'\x7fELF' + bytes([2, 1, 1]) + bytes(9)
    return ident + struct.pack('<HHIQQQIHHHHHH', etype, 62, 1, 0, 64 if phnum else 0, shoff,
                               0, 64, 56, phnum, 64, shnum, 0)


def phdr(flags, off, vaddr, size):
    return struct.pack('<IIQQQQQQ', PT_LOAD, flags, off, vaddr, vaddr, size, size, 8)


def shdr(stype, off, size, link=0, entsize=0):
    return struct.pack('<IIQQQQIIQQ', 0, stype, 0, 0, off, size, link, 0, 8, entsize)


def put(buf, off, data):
    buf[off:off + len(data)] = data


def ntdll_so(str_type=SHT_STRTAB):
    """ET_EXEC: NtAcceptConnectPort, NtAccessCheck, wine_server_call at
    0x1000.. (an executable segment), their table in a data segment, and the
    table's first two functions again in the last 16 bytes."""
    f = bytearray(0x2000)
    put(f, 0, elf_header(2, 2, 0x400, 3))
    put(f, 64, phdr(PF_R | PF_X, 0x1000, 0x1000, 0x100) + phdr(PF_R, 0x1800, 0x1800, 0x800))
    names = [b'NtAcceptConnectPort', b'NtAccessCheck', b'wine_server_call']
    strtab, syms = b'\0', bytes(24)
    for i, n in enumerate(names):
        syms += struct.pack('<IBBHQQ', len(strtab), 0x12, 0, 1, 0x1000 + 0x10 * i, 16)
        strtab += n + b'\0'
    put(f, 0x200, syms)
    put(f, 0x300, strtab)
    # SHT_NOBITS: no bytes in the file, whatever its offset says (far past it)
    str_off, str_size = (0x300, len(strtab)) if str_type != SHT_NOBITS else (1 << 40, 1 << 41)
    put(f, 0x400, bytes(64) + shdr(SHT_DYNSYM, 0x200, len(syms), 2, 24) +
        shdr(str_type, str_off, str_size))
    put(f, 0x1800, struct.pack('<4Q', 0x1000, 0x1010, 0x1020, 0))
    put(f, 0x2000 - 16, struct.pack('<2Q', 0x1000, 0x1010))
    return bytes(f)


# Wine 10's syscall dispatcher: the frame's load from %gs and its stores
# (wineframe.c), as its ntdll.so has them
DISPATCHER = bytes.fromhex(
    '65488b0c25280300008f41709c8f8180000000c781b400000000000000488901488959084889511848'
    '897120488979284c8961504c8969584c8971604c8979688c49784889a1880000008c91900000004889'
    'a998000000488369700b')


def ntdll_so_dispatcher(name=b'__wine_syscall_dispatcher', at=0x1000):
    """ET_DYN: one executable segment over the file, the dispatcher's code at
    0x1000 and a dynamic symbol NAME at AT (Wine 8's prologue end: 0x101d)"""
    f = bytearray(0x1100)
    put(f, 0, elf_header(3, 1, 0x400, 3))
    put(f, 64, phdr(PF_R | PF_X, 0, 0, len(f)))
    strtab = b'\0' + name + b'\0'
    syms = bytes(24) + struct.pack('<IBBHQQ', 1, 0x12, 0, 1, at, 0)
    put(f, 0x200, syms)
    put(f, 0x300, strtab)
    put(f, 0x400, bytes(64) + shdr(SHT_DYNSYM, 0x200, len(syms), 2, 24) +
        shdr(SHT_STRTAB, 0x300, len(strtab)))
    put(f, 0x1000, DISPATCHER)
    return bytes(f)


def wineserver(size=16384, vaddr=0x400000):
    """ET_EXEC: "new_process" and 99 other names, the table of pointers to
    them, then decoy strings."""
    f = bytearray(size)
    put(f, 0, elf_header(2, 2, 0, 0))
    put(f, 64, phdr(PF_R, 0, vaddr, size) + phdr(PF_R | PF_X, 0, 0x10000000, 64))
    at, ptrs = 4096, []
    for i in range(100):
        name = b'new_process' if i == 0 else b'request_%d' % i
        put(f, at, name + b'\0')
        ptrs.append(vaddr + at)
        at += len(name) + 1
    put(f, 8192, struct.pack('<100Q', *ptrs))
    for o in range(8192 + 8 * 128, size - 32, 32):
        put(f, o + 8, b'new_process\0')
    return bytes(f)


def ntdll_dll():
    """PE32+: one section; exports NtAcceptConnectPort (number 0) and
    NtAccessCheck (1), each a stub mov r10, rcx; mov eax, N."""
    f = bytearray(0x1200)
    put(f, 0, b'MZ')
    put(f, 0x3c, struct.pack('<I', 0x80))
    put(f, 0x80, b'PE\0\0' + struct.pack('<HHIIIHH', 0x8664, 1, 0, 0, 0, 240, 0x2022))
    opt = bytearray(240)
    put(opt, 0, struct.pack('<H', 0x20b))
    put(opt, 112, struct.pack('<II', 0x1000, 0x100))
    put(f, 0x98, opt)
    put(f, 0x98 + 240, b'.text\0\0\0' + struct.pack('<IIII', 0x1000, 0x1000, 0x1000, 0x200) +
        bytes(16))
    base = 0x200 - 0x1000  # file offset of an rva
    put(f, base + 0x1000, struct.pack('<IIHHIIIIIII', 0, 0, 0, 0, 0, 1, 2, 2, 0x1040, 0x1050,
                                      0x1060))
    put(f, base + 0x1040, struct.pack('<II', 0x1100, 0x1110))
    put(f, base + 0x1050, struct.pack('<II', 0x1080, 0x10a0))
    put(f, base + 0x1060, struct.pack('<HH', 0, 1))
    put(f, base + 0x1080, b'NtAcceptConnectPort\0')
    put(f, base + 0x10a0, b'NtAccessCheck\0')
    put(f, base + 0x1100, b'\x4c\x8b\xd1\xb8' + struct.pack('<I', 0))
    put(f, base + 0x1110, b'\x4c\x8b\xd1\xb8' + struct.pack('<I', 1))
    return bytes(f)


def unixlib_so():
    """ET_EXEC: __wine_unix_call_funcs (2 entries) and its wow64 twin (1) in
    a data segment; entry 0 leas "thunk64_vkQueueSubmit", entry 1 nothing."""
    f = bytearray(0x2000)
    put(f, 0, elf_header(2, 2, 0x400, 3))
    put(f, 64, phdr(PF_R | PF_X, 0x1000, 0x1000, 0x100) + phdr(PF_R, 0x1800, 0x1800, 0x800))
    strtab, syms = b'\0', bytes(24)
    for name, value, size in ((b'__wine_unix_call_funcs', 0x1900, 16),
                              (b'__wine_unix_call_wow64_funcs', 0x1910, 8)):
        syms += struct.pack('<IBBHQQ', len(strtab), 0x11, 0, 1, value, size)
        strtab += name + b'\0'
    put(f, 0x200, syms)
    put(f, 0x300, strtab)
    put(f, 0x400, bytes(64) + shdr(SHT_DYNSYM, 0x200, len(syms), 2, 24) +
        shdr(SHT_STRTAB, 0x300, len(strtab)))
    # lea 0x1800(%rip-relative), %rdx at 0x1004
    put(f, 0x1004, b'\x48\x8d\x15' + struct.pack('<i', 0x1800 - (0x1004 + 7)))
    put(f, 0x1800, b'thunk64_vkQueueSubmit\0')
    put(f, 0x1900, struct.pack('<3Q', 0x1000, 0x1040, 0x1080))
    return bytes(f)


def pesyms_dll():
    """PE32+: .text page-aligned at file offset 0x1000; a COFF symbol table
    of 4 records: d3d12_command_queue_ExecuteCommandLists (a long name, in
    the string table) at .text+0x10, d3d12_x (a short name, static, one aux
    record after it) at +0x20, and a data symbol; their code and .pdata
    ranges (pexits.c: a ret, a jump through a pointer, a tail call)."""
    f = bytearray(0x2200)
    long_name = b'd3d12_command_queue_ExecuteCommandLists\0'
    put(f, 0, b'MZ')
    put(f, 0x3c, struct.pack('<I', 0x80))
    put(f, 0x80, b'PE\0\0' + struct.pack('<HHIIIHH', 0x8664, 1, 0, 0x2000, 4, 240, 0x2022))
    put(f, 0x98, struct.pack('<H', 0x20b))
    put(f, 0x98 + 136, struct.pack('<II', 0x1800, 24))  # .pdata: data directory 3
    put(f, 0x98 + 240, b'.text\0\0\0' + struct.pack('<IIII', 0x1000, 0x1000, 0x1000, 0x1000) +
        bytes(12) + struct.pack('<I', 0x60000020))
    # the first: push rbx; pop rbx; ret.  The second: jmp *0(%rip) (through
    # a pointer: an exit), then jmp to the first (a tail call, followed)
    put(f, 0x1010, b'\x53\x5b\xc3')
    put(f, 0x1020, b'\xff\x25\x00\x00\x00\x00\xe9' + struct.pack('<i', 0x1010 - 0x102b))
    put(f, 0x1800, struct.pack('<6I', 0x1010, 0x1013, 0, 0x1020, 0x102b, 0))
    sym = struct.pack('<IIIhHBB', 0, 4, 0x10, 1, 0x20, 2, 0)
    sym += b'd3d12_x\0' + struct.pack('<IhHBB', 0x20, 1, 0x20, 3, 1)
    sym += bytes(18)
    sym += b'data\0\0\0\0' + struct.pack('<IhHBB', 0x30, 1, 0, 2, 0)
    put(f, 0x2000, sym + struct.pack('<I', 4 + len(long_name)) + long_name)
    return bytes(f)


def peunwind_walk():
    """fuzz_peunwind.c's framed input: "KPEU", u32 the PE's length, the PE,
    rip and rax..r15 (u64), then the stack copy (at 0x7ff000000000).  A
    PE32+ (image base 0x140000000, .text at rva 0x1000, .pdata and
    UNWIND_INFO at 0x2000) of three functions: f0 push rbx; sub rsp,0x20
    (and its epilogue), f1 a frame register (push rbp; sub rsp,0x40; lea
    rbp,[rsp+0x20]), f2 chained info naming f0's entry; the stack a walk
    f0 -> f1 -> f2 -> a return address of 0 through all three."""
    f = bytearray(0x800)
    put(f, 0, b'MZ')
    put(f, 0x3c, struct.pack('<I', 0x80))
    put(f, 0x80, b'PE\0\0' + struct.pack('<HHIIIHH', 0x8664, 2, 0, 0, 0, 240, 0x2022))
    opt = bytearray(240)
    put(opt, 0, struct.pack('<H', 0x20b))
    put(opt, 24, struct.pack('<Q', 0x140000000))
    put(opt, 56, struct.pack('<I', 0x3000))  # SizeOfImage
    put(opt, 108, struct.pack('<I', 16))     # NumberOfRvaAndSizes
    put(opt, 136, struct.pack('<II', 0x2000, 36))
    put(f, 0x98, opt)
    put(f, 0x98 + 240, b'.text\0\0\0' + struct.pack('<IIII', 0x200, 0x1000, 0x200, 0x400) +
        bytes(12) + struct.pack('<I', 0x60000020))
    put(f, 0x98 + 280, b'.pdata\0\0' + struct.pack('<IIII', 0x200, 0x2000, 0x200, 0x600) +
        bytes(12) + struct.pack('<I', 0x40000040))
    text = bytearray(b'\x90' * 0x200)
    put(text, 0, b'\x53\x48\x83\xec\x20')                   # f0 prolog
    put(text, 0x0a, b'\x48\x83\xc4\x20\x5b\xc3')           # f0 epilogue
    put(text, 0x10, b'\x55\x48\x83\xec\x40\x48\x8d\x6c\x24\x20')  # f1 prolog
    put(f, 0x400, text)
    pd = struct.pack('<9I', 0x1000, 0x1010, 0x2100, 0x1010, 0x1030, 0x2110,
                     0x1030, 0x1040, 0x2120)
    put(f, 0x600, pd)
    # f0: v1, prolog 5, 2 codes: ALLOC_SMALL 0x20 at 5, PUSH rbx at 1
    put(f, 0x700, bytes([1, 5, 2, 0, 5, 0x32, 1, 0x30]))
    # f1: v1, prolog 10, frame rbp + 0x20: SET_FPREG at 10, ALLOC_SMALL 0x40 at 5, PUSH rbp at 1
    put(f, 0x710, bytes([1, 10, 3, 0x25, 10, 0x03, 5, 0x72, 1, 0x50, 0, 0]))
    # f2: v1, UNW_FLAG_CHAININFO, no codes, then f0's entry
    put(f, 0x720, bytes([1 | 4 << 3, 0, 0, 0]) + struct.pack('<3I', 0x1000, 0x1010, 0x2100))
    base, sp = 0x140000000, 0x7ff000000000
    stack = bytearray(0xb0)
    put(stack, 0x20, struct.pack('<QQ', 0xb0b, base + 0x1020))   # f0: rbx, into f1
    s1 = 0x30
    put(stack, s1 + 0x40, struct.pack('<QQ', 0x5eed, base + 0x1038))  # f1: rbp, into f2
    s2 = s1 + 0x50
    put(stack, s2 + 0x20, struct.pack('<QQ', 0xc0c, 0))  # f2 (f0's codes): rbx, the end
    regs = [0] * 16
    regs[4] = sp
    regs[5] = sp + s1 + 0x20  # f1's rbp: its fixed frame + 0x20
    return (b'KPEU' + struct.pack('<I', len(f)) + bytes(f) +
            struct.pack('<17Q', base + 0x1008, *regs) + bytes(stack))


def overlapping_sections(size, nsec=96):
    """PE32+ of size bytes (a multiple of 8, at least 0x4000), image base 0:
    nsec non-executable sections, each mapping the whole file at its own
    address (0x1000 * (i + 1)), none holding rva 0, which every zero word
    of the file points to; an export directory at file offset 0x2000 whose
    name pointers (all zero) run from 0x3000 to the end.  Returned as the
    header bytes: the rest of the file is zeros (write it sparse)."""
    f = bytearray(0x3000)
    lfanew, optsize = 0x40, 240
    put(f, 0, b'MZ')
    put(f, 0x3c, struct.pack('<I', lfanew))
    put(f, lfanew, b'PE\0\0' + struct.pack('<HHIIIHH', 0x8664, nsec, 0, 0, 0, optsize, 0x2022))
    opt = lfanew + 24
    put(f, opt, struct.pack('<H', 0x20b))
    put(f, opt + 112, struct.pack('<II', 0x3000, 40))  # exports: file offset 0x2000
    sec = opt + optsize
    for i in range(nsec):
        put(f, sec + 40 * i, b'.data\0\0\0' + struct.pack('<IIII', size, 0x1000 * (i + 1), size, 0) +
            bytes(12) + struct.pack('<I', 0xc0000040))
    nnames = (size - 0x3000) // 4
    # nfuncs 1, nnames, functions/ordinals at 0x2100 (rva 0x3100), names at 0x3000 (rva 0x4000)
    put(f, 0x2000, struct.pack('<IIHHIIIIIII', 0, 0, 0, 0, 0, 1, 1, nnames, 0x3100, 0x4000,
                               0x4000))
    return bytes(f)


def write_sparse(path, head, size):
    with open(path, 'wb') as fh:
        fh.write(head)
        fh.truncate(size)


def main():
    if sys.argv[1] == '--overlapping':
        write_sparse(sys.argv[3], overlapping_sections(int(sys.argv[2], 0)), int(sys.argv[2], 0))
        return
    out = sys.argv[1]
    seeds = {
        'elf': {'ntdll-so': ntdll_so(), 'ntdll-so-nobits-strtab': ntdll_so(SHT_NOBITS),
                'ntdll-so-dispatcher': ntdll_so_dispatcher(),
                'ntdll-so-prolog-end': ntdll_so_dispatcher(
                    b'__wine_syscall_dispatcher_prolog_end', 0x101d)},
        'pe': {'ntdll-dll': ntdll_dll()},
        'wineserver': {'wineserver': wineserver()},
        'unixcalls': {'unixlib-so': unixlib_so()},
        'pesyms': {'pesyms-dll': pesyms_dll()},
        'peunwind': {'pesyms-dll': pesyms_dll(), 'walk': peunwind_walk()},
    }
    # 512 KiB: a parser quadratic in the sections (96 walks of every
    # section per word) takes about 40 s on it under ASan, far past run.sh's
    # -timeout; a linear one about 0.03 s (small enough to leave the
    # fuzzer's time to mutations)
    overlapping = overlapping_sections(512 << 10)
    overlapping += bytes((512 << 10) - len(overlapping))
    for kind in ('pe', 'unixcalls', 'pesyms', 'peunwind'):
        seeds[kind]['overlapping-sections'] = overlapping
    for kind, files in seeds.items():
        os.makedirs(os.path.join(out, kind), exist_ok=True)
        for name, data in files.items():
            with open(os.path.join(out, kind, 'seed-' + name), 'wb') as fh:
                fh.write(data)


if __name__ == '__main__':
    main()
