// The size of the slowest tests: whole in the Release build, a size down (a
// piece fewer, a smaller board) in the sanitizer builds, which set
// DTB_TEST_SMALL (tests/CMakeLists.txt, scripts/test.sh). The code a test
// runs is the same either way; only how much of it.
#pragma once

#ifndef DTB_TEST_SMALL
#define DTB_TEST_SMALL 0
#endif

namespace dtb::test {

inline constexpr bool small_build = DTB_TEST_SMALL != 0;

// `full` in the Release build, `small` in the sanitizer builds.
template <class T>
constexpr T full_or_small(T full, T small) {
    return small_build ? small : full;
}

}  // namespace dtb::test
