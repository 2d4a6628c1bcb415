// The process as the system sees it: the machine's memory, the peak and
// present resident memory and processor time so far, memory handed back,
// and the clock the drivers time their work with. Nothing of the build.
#pragma once

#include <chrono>
#include <cstdint>

namespace dtb {

using Clock = std::chrono::steady_clock;

inline double seconds_since(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

// The machine's memory, the process's peak resident memory, and the
// processor time (user and system) of all its threads so far.
std::uint64_t physical_memory();
std::uint64_t peak_resident_bytes();
double cpu_seconds();

// The process's memory now, in bytes: resident, of its own (anonymous) and
// of files it maps (its code, and tables the probe library maps); what is
// allocated, in glibc's heaps (zero elsewhere) and in large blocks
// (huge_pages.hpp), and what the heaps hold free.
struct MemoryNow {
    std::uint64_t resident_anonymous = 0, resident_file = 0;
    std::uint64_t heap_allocated = 0, heap_free = 0;
};
MemoryNow memory_now();
// Hands back to the system the memory the allocator holds free, once its
// heaps hold more than kept_free_bytes free. glibc keeps what its heaps
// freed for later use; over a build of many tables, each solved, packed,
// unpacked, read back and released, that grew to gigabytes above what the
// build holds (docs/design.md, Solver, "Memory"). Called as each level of a
// material starts (MaterialSolver, in every kind of build) and once a
// material is done. Less than kept_free_bytes stays for the next level's
// buffers, which would otherwise be faulted in afresh (a team member's
// levels free and take again such buffers many times a material).
inline constexpr std::uint64_t kept_free_bytes = std::uint64_t{64} << 20;
void return_free_memory();
// Blocks of 128 KiB and more taken from the system and handed back each on
// its own (glibc's M_MMAP_THRESHOLD fixed at 128 KiB), unless the user set
// MALLOC_MMAP_THRESHOLD_. glibc otherwise raises that threshold to the size
// of each such block freed, up to 32 MiB, and keeps the freed blocks below
// it in its heaps, where malloc_trim cannot always hand them back: a
// build's frames, buffers and levels are of those sizes (docs/design.md,
// Solver, "Memory"). A heap's free top is handed back by itself only past
// 32 MiB (M_TRIM_THRESHOLD, unless the user set MALLOC_TRIM_THRESHOLD_),
// where fixing the first threshold left glibc's 128 KiB: every block under
// 128 KiB freed at a heap's top was handed back and faulted in again by the
// next, half the build's page faults; return_free_memory() still hands back
// what is free as levels and materials end. Called once, as `dtb build`
// starts.
void map_large_blocks();

}  // namespace dtb
