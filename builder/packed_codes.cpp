#include "builder/packed_codes.hpp"

#include <algorithm>
#include <span>
#include <stdexcept>

#include <tbb/parallel_for.h>

#include "probe/zstd_frame.hpp"

namespace dtb {

namespace {

// The codes of frame f.
template <class Code>
std::span<Code> frame_of(std::span<Code> codes, std::size_t f) {
    const std::size_t first = f << PackedCodes::frame_shift;
    return codes.subspan(first, std::min(codes.size() - first, std::size_t{1} << PackedCodes::frame_shift));
}

}  // namespace

PackedCodes::PackedCodes(const SolvedValues& values)
    : material_(values.material),
      positions_per_side_(values.positions_per_side),
      positions_(values.codes.size()),
      max_code_(values.max_code) {
    if (!values.whole()) throw std::logic_error("only whole tables are packed");
    frames_.resize((positions_ + (1ull << frame_shift) - 1) >> frame_shift);
    tbb::parallel_for(std::size_t{0}, frames_.size(), [&](std::size_t f) {
        frames_[f] = zstd_compress(std::as_bytes(frame_of(std::span(values.codes), f)), level);
    });
    bytes_ = frames_.size() * sizeof(frames_[0]);
    for (const auto& frame : frames_) bytes_ += frame.size();
}

SolvedValues PackedCodes::unpack() const {
    SolvedValues values(material_, positions_per_side_);
    values.drop_capture_marks();
    values.max_code = max_code_;
    tbb::parallel_for(std::size_t{0}, frames_.size(), [&](std::size_t f) {
        const std::span<std::byte> out = std::as_writable_bytes(frame_of(std::span(values.codes), f));
        if (const std::string wrong = zstd_decompress(frames_[f], out); !wrong.empty())
            throw std::logic_error(material_.name() + ": a packed frame " + wrong);
    });
    return values;
}

}  // namespace dtb
