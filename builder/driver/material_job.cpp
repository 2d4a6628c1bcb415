#include "builder/driver/material_job.hpp"

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <future>
#include <map>
#include <memory>
#include <mutex>

#include <tbb/task_arena.h>

namespace dtb {

TableSpec table_spec(const BuildOptions& o, int board_size, const Material& m, std::uint64_t per_side,
                     std::uint32_t max_code) {
    TableSpec spec;
    spec.variant = o.variant;
    spec.board_size = board_size;
    spec.material = m;
    spec.positions_per_side = per_side;
    spec.block_shift = o.block_shift;
    spec.wld_compression_level = o.wld_compression_level;
    spec.dtw_compression_level = o.dtw_compression_level;
    spec.provenance = make_provenance(o.options);
    spec.max_code = max_code;
    return spec;
}

namespace {

// The writer's codes of positions [first, first + out.size()), all held by `values`.
void codes_of(const SolvedValues& values, std::uint64_t first, std::span<std::uint32_t> out) {
    for (std::size_t i = 0; i < out.size(); ++i)
        out[i] = values.has_capture(first + i) ? dont_care : values.code(first + i);
}

// The frames of a packed table read back and unpacked as they are asked
// for, the last `held` of them kept: each unpacked once by the first thread
// that asks, the others that ask meanwhile waiting for it.
class UnpackedFrames {
public:
    UnpackedFrames(const PackedTable& table, std::size_t held) : table_(table), held_(held) {}

    std::shared_ptr<const SolvedValues> frame(std::uint64_t f) {
        std::promise<std::shared_ptr<const SolvedValues>> made;
        std::shared_future<std::shared_ptr<const SolvedValues>> found;
        {
            const std::lock_guard lock(mutex_);
            if (const auto it = frames_.find(f); it != frames_.end()) return it->second.get();
            found = frames_.emplace(f, made.get_future().share()).first->second;
            while (frames_.size() > held_) frames_.erase(frames_.begin());  // the writer goes forward
        }
        try {
            const std::uint64_t first = f << PackedRange::frame_shift;
            auto values = std::make_shared<SolvedValues>(
                table_.material, table_.positions_per_side, first,
                std::min(std::uint64_t{1} << PackedRange::frame_shift, table_.positions - first));
            const PackedRange packed = table_.frames->read(f, 1);
            // Isolated: this thread takes no other block meanwhile, which could wait for this frame.
            tbb::this_task_arena::isolate([&] {
                unpack_range(packed.bytes, packed.frame_bytes, *values, first, values->codes.size(),
                             table_.frames->file().string());
            });
            made.set_value(std::move(values));
        } catch (...) {
            made.set_exception(std::current_exception());
        }
        return found.get();
    }

private:
    const PackedTable& table_;
    std::size_t held_;
    std::mutex mutex_;
    std::map<std::uint64_t, std::shared_future<std::shared_ptr<const SolvedValues>>> frames_;
};

}  // namespace

ValueSource value_source(const SolvedValues& values) {
    return [&values](std::uint64_t first, std::span<std::uint32_t> out) { codes_of(values, first, out); };
}

ValueSource value_source(const PackedTable& table, int block_shift) {
    const std::uint64_t batch = write_batch_blocks << block_shift;
    auto frames = std::make_shared<UnpackedFrames>(
        table, static_cast<std::size_t>(std::max<std::uint64_t>(8, 2 * (batch >> PackedRange::frame_shift))));
    return [frames](std::uint64_t first, std::span<std::uint32_t> out) {
        for (std::size_t i = 0; i < out.size();) {
            const std::uint64_t g = first + i;
            const std::shared_ptr<const SolvedValues> values = frames->frame(g >> PackedRange::frame_shift);
            const std::size_t n = std::min<std::uint64_t>(out.size() - i, values->first + values->codes.size() - g);
            codes_of(*values, g, out.subspan(i, n));
            i += n;
        }
    };
}

ManifestEntry counted(const Material& m, std::uint64_t positions, const ValueCounts& c) {
    ManifestEntry e;
    e.material = m;
    e.positions = positions;
    e.wins = c.wins;
    e.draws = c.draws;
    e.losses = c.losses;
    e.longest_win = c.longest;
    return e;
}

ManifestEntry count_values(const SolvedValues& v) {
    return counted(v.material, v.codes.size(),
                   count_wdl(v.codes.size(), [&](std::size_t i) { return value_of_dtw_code(v.codes[i]); }));
}

void record_files(ManifestEntry& entry, const WrittenTables& written) {
    entry.wld_bytes = written.wld_bytes;
    entry.dtw_bytes = written.dtw_bytes;
    entry.wld_checksum = written.wld_checksum;
    entry.dtw_checksum = written.dtw_checksum;
}


void maybe_kill_after_write(const std::string& name) {
    const char* target = std::getenv("DTB_TEST_KILL_AFTER_WRITE");
    if (target && name == target) std::raise(SIGKILL);
}

void maybe_kill_after_write(const Material& m) { maybe_kill_after_write(m.name()); }

}  // namespace dtb
