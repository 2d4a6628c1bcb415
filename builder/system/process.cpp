#include "builder/system/process.hpp"

#include <malloc.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>
#include <mutex>

#include "builder/system/huge_pages.hpp"

namespace dtb {

std::uint64_t physical_memory() {
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
    return pages > 0 && page > 0 ? static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page)
                                 : std::uint64_t{4} << 30;
}

std::uint64_t peak_resident_bytes() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return static_cast<std::uint64_t>(usage.ru_maxrss) * 1024;
}

double cpu_seconds() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    auto seconds = [](const timeval& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) * 1e-6; };
    return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

MemoryNow memory_now() {
    MemoryNow now;
    std::ifstream status("/proc/self/status");
    std::string key;
    std::uint64_t kib = 0;
    while (status >> key) {
        if (key == "RssAnon:" && status >> kib) now.resident_anonymous = kib << 10;
        if (key == "RssFile:" && status >> kib) now.resident_file = kib << 10;
    }
#ifdef __GLIBC__
    const struct mallinfo2 heaps = mallinfo2();
    now.heap_allocated = heaps.uordblks + heaps.hblkhd;  // in the heaps' arenas, and mapped on their own
    now.heap_free = heaps.fordblks;
#endif
    now.heap_allocated += huge_paged_bytes();
    return now;
}

void return_free_memory() {
#ifdef __GLIBC__
    // One call at a time. Where a sanitizer replaces malloc, glibc's heap is
    // first set up by this call, and glibc marks it set up before it is: a
    // second thread calling at once walked bins not yet made and crashed.
    static std::mutex one_at_a_time;
    const std::lock_guard lock(one_at_a_time);
    if (mallinfo2().fordblks < kept_free_bytes) return;
    malloc_trim(0);
#endif
}

void map_large_blocks() {
#ifdef __GLIBC__
    if (std::getenv("MALLOC_MMAP_THRESHOLD_") == nullptr) mallopt(M_MMAP_THRESHOLD, 128 * 1024);
    if (std::getenv("MALLOC_TRIM_THRESHOLD_") == nullptr) mallopt(M_TRIM_THRESHOLD, 32 * 1024 * 1024);
#endif
}

}  // namespace dtb
