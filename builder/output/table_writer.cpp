#include "builder/output/table_writer.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <deque>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <fmt/chrono.h>
#include <fmt/core.h>
#include <nlohmann/json.hpp>
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_reduce.h>

#include "builder/output/replaced_file.hpp"
#include "dtb.h"
#include "builder/system/huge_pages.hpp"
#include "builder/system/work_profile.hpp"
#include "probe/errors.hpp"
#include "probe/rule_count.hpp"
#include "probe/table_file.hpp"
#include "probe/value.hpp"
#include "probe/wld_reader.hpp"
#include "probe/zstd_frame.hpp"

namespace dtb {

namespace {

// A thread's array of n elements for one use (`Use`),
// kept from block to block: a block's codes (2^16 of 4 bytes by default)
// are above the size glibc maps on its own (map_large_blocks()), so an
// array made anew for each block would be mapped and faulted in afresh.
// A thread keeps its five (about 0.9 MiB at 2^16 codes a block) until it ends.
enum class BlockArray { codes, cared, even_side, odd_side, dtw };
template <class T, BlockArray Use>
std::span<T> block_scratch(std::size_t n) {
    thread_local std::vector<T> kept;
    if (kept.size() < n) kept.resize(n);
    return {kept.data(), n};
}

// A dont_care position takes the value before it in the block (or the
// first real value after it, at the start), which keeps runs unbroken.
void fill_dont_care(std::span<std::uint32_t> codes) {
    const auto first_real = std::find_if(codes.begin(), codes.end(), [](std::uint32_t c) { return c != dont_care; });
    std::uint32_t previous = first_real == codes.end() ? 0 : *first_real;
    for (std::uint32_t& c : codes) previous = c = c == dont_care ? previous : c;
}

// A block's codes (no dont_care left) as .wld bytes, 2 bits a value.
std::vector<std::byte> wld_bytes(std::span<const std::uint32_t> codes) {
    std::vector<std::byte> wld((codes.size() + 3) / 4, std::byte{0});
    for (std::size_t k = 0; k < codes.size(); ++k)
        wld[k / 4] |= static_cast<std::byte>(wld_code(value_of_dtw_code(codes[k]).wdl) << (2 * (k % 4)));
    return wld;
}

// A run of codes (dont_care and draws left, for the .dtw of version 2) as
// .dtw bytes of `dtw_bits`: capture positions take fillers, and in
// `version` 2 draws too. A .rul's are those of 8 bits in version 1 (its
// writer marks the draws it leaves out dont_care itself).
// The bytes are the thread's, until its next call.
std::span<const std::byte> dtw_bytes(std::span<const std::uint32_t> codes, int dtw_bits, std::uint32_t version) {
    const std::span<std::uint32_t> cared = block_scratch<std::uint32_t, BlockArray::cared>(codes.size());
    std::copy(codes.begin(), codes.end(), cared.begin());
    if (version >= 2)
        for (std::uint32_t& c : cared)
            if (c == 0) c = dont_care;
    fill_dont_care(cared);
    const std::size_t bytes = cared.size() * static_cast<std::size_t>(dtw_bits / 8);
    const std::span<std::byte> dtw = block_scratch<std::byte, BlockArray::dtw>(bytes);
    for (std::size_t k = 0; k < cared.size(); ++k) {
        if (dtw_bits == 8) {
            dtw[k] = static_cast<std::byte>(cared[k]);
        } else {
            dtw[2 * k] = static_cast<std::byte>(cared[k]);
            dtw[2 * k + 1] = static_cast<std::byte>(cared[k] >> 8);
        }
    }
    return dtw;
}

// One table file being written: blocks appended, tables at the end.
class FileWriter {
public:
    // `tag` names the temporary file apart from others of the same file
    // (ReplacedFile): two .dtw written at once, one of each half.
    FileWriter(std::filesystem::path final_path, TableHeader header, std::string_view tag = {})
        : file_(std::move(final_path), true, tag), header_(std::move(header)) {
        header_bytes_ = encode_header(header_);
        offsets_.push_back(header_.blocks_start());
        // Room for the offsets, checksums and table checksum, filled in at the end.
        const std::vector<std::byte> zeros(header_.blocks_start());
        file_.write(zeros);
    }

    void add_block(std::span<const std::byte> compressed) {
        file_.write(compressed);
        add_written(compressed.size(), checksum(compressed));
    }
    // A block another writer put in place (write_into()): its size and checksum.
    void add_written(std::uint64_t size, std::uint64_t block_checksum) {
        checksums_.push_back(block_checksum);
        offsets_.push_back(offsets_.back() + size);
    }
    // The room for the offsets and checksums handed to the system, before
    // others write blocks after it.
    void flush() { file_.flush(); }
    // The bytes of its blocks so far.
    std::uint64_t block_bytes() const noexcept { return offsets_.back() - offsets_.front(); }

    // Writes the tables, flushes to disk and renames into place; returns the
    // file's size and table checksum.
    std::pair<std::uint64_t, std::uint64_t> finish() {
        std::vector<std::byte> tables = header_bytes_;
        tables.resize(header_.blocks_start());
        std::byte* p = tables.data() + header_.header_size;
        for (std::uint64_t o : offsets_) store_u64(std::exchange(p, p + 8), o);
        for (std::uint64_t c : checksums_) store_u64(std::exchange(p, p + 8), c);
        const std::uint64_t table_checksum = checksum(std::span<const std::byte>(tables).first(tables.size() - 8));
        store_u64(p, table_checksum);
        file_.seek(0);
        file_.write(tables);
        file_.commit();
        return {offsets_.back(), table_checksum};
    }

private:
    ReplacedFile file_;
    TableHeader header_;
    std::vector<std::byte> header_bytes_;
    std::vector<std::uint64_t> offsets_;
    std::vector<std::uint64_t> checksums_;
};

// A .wld in placement order (TableHeader::paired()), its positions
// [first, first + count) gathered before they are written, 2 bits a
// position as the file lays them out and 3 where a position is dont_care:
// its second half comes from the table's second half in another order, so
// its blocks are not the table's blocks of g. One process gathers every
// position (put()); a team member the range it writes, from every member's
// codes of its own range of g (exchange()).
class PairedWld {
    using Bytes = HugePagedVector<std::uint8_t>;

public:
    PairedWld(const TableHeader& header, std::uint64_t first, std::uint64_t count, bool team = false)
        : header_(header), order_(paired_order_of(header)), first_(first), count_(count),
          bytes_((count + 3) / 4), own_(team ? (count + 3) / 4 : 0), team_(team) {}

    // Codes (or dont_care) of table positions start.. (from several threads):
    // in one process to their places, in a team into the member's own codes.
    void put(std::uint64_t start, std::span<const std::uint32_t> codes) {
        const auto code = [&](std::size_t k) {
            return codes[k] == dont_care ? 3u : wld_code(value_of_dtw_code(codes[k]).wdl);
        };
        if (team_) {  // a block of the member's range: bytes of its own (blocks are 2^10 positions or more)
            for (std::size_t k = 0; k < codes.size(); ++k) set(own_, start + k - first_, code(k));
            return;
        }
        for_each_place(start, codes.size(),
                       [&](std::uint64_t k, std::uint64_t w) { set_shared(bytes_, w - first_, code(k)); });
    }

    // Collective, a team's members each with the same range of g put() and
    // of w to write: the codes of the first half go as they stand (position
    // g is at 2g); those of the second half go a men configuration of M' at
    // a time to the members writing the placements of its turned-round
    // configuration of M, each part led by the distance in men
    // configurations from the one before (a varint), since the receiver
    // cannot list them in the sender's order without going through its
    // range. 2 bits a position and about a byte a men configuration cross.
    void exchange(Team& team, const std::vector<std::uint64_t>& firsts) {
        const int members = team.size();
        const std::uint64_t pps = header_.positions_per_side, kings = order_.king_placements;
        const auto owner = [&](std::uint64_t w) {
            return static_cast<int>(std::upper_bound(firsts.begin(), firsts.end() - 1, w) - firsts.begin()) - 1;
        };
        const auto code_at = [&](const Bytes& bytes, std::uint64_t k) {
            return (bytes[k / 4] >> (2 * (k % 4))) & 3u;
        };
        // The first half's g of member j's range of w: [ceil(first / 2), ceil(end / 2)).
        const auto first_half = [&](int j, std::uint64_t from, std::uint64_t to) {
            const std::uint64_t lo = std::max((firsts[j] + 1) / 2, from), hi = std::min({(firsts[j + 1] + 1) / 2, to, pps});
            return std::pair{lo, std::max(lo, hi)};
        };
        // This member's codes for each member: the first half's, then the
        // second half's in parts, their varints apart.
        std::vector<std::vector<std::uint8_t>> codes(members), heads(members);
        std::vector<std::uint64_t> coded(members), last(members, 0);
        const auto append = [&](int j, unsigned v) {
            if (coded[j] % 4 == 0) codes[j].push_back(0);
            codes[j].back() |= static_cast<std::uint8_t>(v << (2 * (coded[j]++ % 4)));
        };
        const std::uint64_t end = first_ + count_;
        for (int j = 0; j < members; ++j) {
            const auto [lo, hi] = first_half(j, first_, end);
            for (std::uint64_t g = lo; g < hi; ++g) append(j, code_at(own_, g - first_));
        }
        const std::uint64_t second = std::max(first_, pps);
        for (std::uint64_t men = (second - pps) / kings; second < end && pps + men * kings < end; ++men) {
            const std::uint64_t lo = std::max(second, pps + men * kings), hi = std::min(end, pps + (men + 1) * kings);
            const std::uint64_t placed = order_.turned_men(men) * kings;  // the placements, and w = 2i + 1
            const int from = owner(2 * placed + 1), to = owner(2 * (placed + kings) - 1);
            for (int j = from; j <= to; ++j) {
                std::uint64_t step = men + 1 - last[j];
                last[j] = men + 1;
                for (; step >= 128; step >>= 7) heads[j].push_back(static_cast<std::uint8_t>(step | 128));
                heads[j].push_back(static_cast<std::uint8_t>(step));
                for (std::uint64_t g = lo; g < hi; ++g) append(j, code_at(own_, g - first_));
            }
        }
        std::vector<std::byte> out;
        std::vector<std::size_t> counts(members);
        std::size_t total = 0;
        for (int j = 0; j < members; ++j) total += 8 + heads[j].size() + codes[j].size();
        out.reserve(total);
        for (int j = 0; j < members; ++j) {
            const std::size_t before = out.size();
            std::byte size[8];
            store_u64(size, heads[j].size());
            out.insert(out.end(), size, size + 8);
            for (const auto* part : {&heads[j], &codes[j]})
                for (std::uint8_t b : *part) out.push_back(static_cast<std::byte>(b));
            counts[j] = out.size() - before;
        }
        Team::Received in;
        team.all_to_all(out, counts, in);
        // Each member's message, read as it was made.
        for (int k = 0; k < members; ++k) {
            const std::byte* p = in.bytes.data() + in.offsets[k];
            const std::byte* heads_at = p + 8;
            const std::byte* heads_end = heads_at + load_u64(p);
            const std::byte* codes_at = heads_end;
            std::uint64_t read = 0;
            const auto next_code = [&] { return (std::to_integer<unsigned>(codes_at[read / 4]) >> (2 * (read++ % 4))) & 3u; };
            const auto [lo, hi] = first_half(team.rank(), firsts[k], firsts[k + 1]);
            for (std::uint64_t g = lo; g < hi; ++g) set(bytes_, 2 * g - first_, next_code());
            const std::uint64_t k_second = std::max(firsts[k], pps), k_end = firsts[k + 1];
            std::uint64_t men = 0;
            for (const std::byte* h = heads_at; h < heads_end;) {
                std::uint64_t step = 0;
                for (int shift = 0;; shift += 7) {
                    const unsigned b = std::to_integer<unsigned>(*h++);
                    step |= static_cast<std::uint64_t>(b & 127) << shift;
                    if (b < 128) break;
                }
                men += step;  // one past the configuration
                const std::uint64_t lo2 = std::max(k_second, pps + (men - 1) * kings), hi2 = std::min(k_end, pps + men * kings);
                for_each_place(lo2, hi2 - lo2, [&](std::uint64_t, std::uint64_t w) {
                    const unsigned v = next_code();
                    if (w >= first_ && w < end) set(bytes_, w - first_, v);
                });
            }
        }
    }

    // Block b of the file, compressed at `level`. A dont_care position
    // takes the value of the same side to move before it, as
    // fill_dont_care() does for each side's positions of the block.
    std::vector<std::byte> compressed(std::uint64_t b, int level) const {
        const std::uint64_t start = header_.block_first(b), n = header_.block_values(b);
        const std::span<std::uint32_t> side[2] = {block_scratch<std::uint32_t, BlockArray::even_side>((n + 1) / 2),
                                                  block_scratch<std::uint32_t, BlockArray::odd_side>(n / 2)};
        for (std::uint64_t k = 0; k < n; ++k) {
            const std::uint64_t at = start + k - first_;
            const unsigned v = (bytes_[at / 4] >> (2 * (at % 4))) & 3u;
            side[k % 2][k / 2] = v == 3 ? dont_care : v == wld_code(Wdl::win) ? 2 : v == wld_code(Wdl::loss) ? 1 : 0;
        }
        fill_dont_care(side[0]);
        fill_dont_care(side[1]);
        const std::span<std::uint32_t> codes = block_scratch<std::uint32_t, BlockArray::codes>(n);
        for (std::uint64_t k = 0; k < n; ++k) codes[k] = side[k % 2][k / 2];
        return zstd_compress(wld_bytes(codes), level);
    }

    // Every block of the file, in order (one process).
    void write(FileWriter& file, int level) const {
        const std::uint64_t blocks = header_.block_count();
        for (std::uint64_t first = 0; first < blocks; first += write_batch_blocks) {
            const std::uint64_t count = std::min(write_batch_blocks, blocks - first);
            std::vector<std::vector<std::byte>> blocks_made(count);
            work_profile::Step step(work_profile::Kind::compress, count);
            tbb::parallel_for(std::uint64_t{0}, count, [&](std::uint64_t i) {
                const auto piece = step.piece();
                blocks_made[i] = compressed(first + i, level);
            });
            for (const auto& block : blocks_made) file.add_block(block);
        }
    }

private:
    // f(k, w) for table positions g + k, k < n, in order, w the file's
    // place of each (PairedOrder::positions()), a few hundred at a time: a
    // men configuration's places may be millions (a kings-only material's
    // are all of them), and a block's allocated for each block would be
    // fresh pages each time, faulted in.
    template <class F>
    void for_each_place(std::uint64_t g, std::uint64_t n, F&& f) const {
        std::array<std::uint64_t, 512> places;
        for (std::uint64_t k0 = 0; k0 < n; k0 += places.size()) {
            const std::span<std::uint64_t> run(places.data(), std::min<std::uint64_t>(places.size(), n - k0));
            order_.positions(g + k0, run);
            for (std::size_t k = 0; k < run.size(); ++k) f(k0 + k, run[k]);
        }
    }

    // Code v of position k, where other threads may be setting the byte's other positions.
    static void set_shared(Bytes& bytes, std::uint64_t k, unsigned v) {
        std::atomic_ref<std::uint8_t>(bytes[k / 4]).fetch_or(static_cast<std::uint8_t>(v << (2 * (k % 4))),
                                                             std::memory_order_relaxed);
    }
    // The same where no other thread writes the byte.
    static void set(Bytes& bytes, std::uint64_t k, unsigned v) {
        bytes[k / 4] |= static_cast<std::uint8_t>(v << (2 * (k % 4)));
    }

    TableHeader header_;
    PairedOrder order_;
    std::uint64_t first_, count_;
    Bytes bytes_;  // positions first_.. of the file
    Bytes own_;    // a team member's codes of its range of g
    bool team_;
};

}  // namespace

std::string make_provenance(const std::string& options) {
    auto now = std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now());
    // Reproducible builds (reproducible-builds.org): a fixed date from the environment.
    if (const char* epoch = std::getenv("SOURCE_DATE_EPOCH"); epoch && *epoch) {
        char* end = nullptr;
        const long long seconds = std::strtoll(epoch, &end, 10);
        if (*end != '\0' || seconds < 0)
            throw std::runtime_error(std::string("SOURCE_DATE_EPOCH='") + epoch +
                                     "' is not a number of seconds since 1970: set it to one, or unset it");
        now = std::chrono::sys_seconds(std::chrono::seconds(seconds));
    }
    const nlohmann::json j = {{"tool", std::string("dtb ") + dtb_version()},
                              {"date", fmt::format("{:%Y-%m-%dT%H:%M:%SZ}", now)},
                              {"options", options}};
    return j.dump();
}

namespace {

// The header both files share; write_files() sets the kind and value bits of each.
TableHeader header_of(const TableSpec& spec) {
    TableHeader header;
    header.variant = spec.variant;
    header.board_size = spec.board_size;
    header.material = spec.material;
    header.sides = sides_of(spec.material);
    header.block_shift = spec.block_shift;
    header.positions_per_side = spec.positions_per_side;
    header.provenance = spec.provenance.empty() ? make_provenance("") : spec.provenance;
    return header;
}

}  // namespace

TableSpec table_spec_of(const TableHeader& h) {
    TableSpec spec;
    spec.variant = h.variant;
    spec.board_size = h.board_size;
    spec.material = h.material;
    spec.positions_per_side = h.positions_per_side;
    spec.block_shift = h.block_shift;
    spec.provenance = h.provenance;
    return spec;
}

namespace {

// The .wld's version a spec asks for: 1, 3 or 4.
std::uint32_t wld_version_of(const TableSpec& spec) {
    if (spec.wld_version != 1 && spec.wld_version != 3 && spec.wld_version != 4)
        throw std::logic_error("a .wld of format version " + std::to_string(spec.wld_version) + " is not written");
    return spec.wld_version;
}

int dtw_bits_for(std::uint32_t max_code) {
    if (max_code > max_dtw_code)
        throw std::runtime_error("a distance of " + std::to_string(max_code - 1) +
                                 " plies does not fit the .dtw format (at most 65,534)");
    return max_code <= 255 ? 8 : 16;
}

// The halves of a table's positions a .dtw or .rul of `version` may store
// (docs/format.md, "Positions"): both in version 1, in a table of one side
// (a material equal to its mirror) and in a .rul of two value arrays (a
// main road); else the first or the second, whichever is smaller, written
// both and the larger dropped.
std::vector<StoredHalf> one_sided_candidates(const TableHeader& header, std::uint32_t version) {
    if (header.sides == 1 || version < 2 || (header.kind == TableKind::rul && header.rules.arrays() != 1))
        return {StoredHalf::both};
    return {StoredHalf::first, StoredHalf::second};
}

// The part of `codes` (the table's positions from `start`) that a file
// storing `half` holds; none if it holds none of them.
std::optional<std::span<const std::uint32_t>> stored_part(TableHeader header, StoredHalf half, std::uint64_t start,
                                                           std::span<const std::uint32_t> codes) {
    header.stored = half;
    const std::uint64_t from = std::max(start, header.stored_begin());
    const std::uint64_t to = std::min(start + codes.size(), header.stored_end());
    if (from >= to) return std::nullopt;
    return codes.subspan(from - start, to - from);
}

// Block b of the .wld, compressed, and the parts of it that each candidate
// .dtw stores (none where b holds none of its positions; the block across
// the halves is a block of each).
struct CompressedBlock {
    std::vector<std::byte> wld;
    std::vector<std::optional<std::vector<std::byte>>> dtw;
};
// With `paired`, the .wld's values go there instead (wld empty), and
// with `with_dtw` false no .dtw block is made.
std::vector<CompressedBlock> compress_blocks(const TableHeader& header, const TableSpec& spec, std::uint32_t max_code,
                                             const ValueSource& values, std::uint64_t first, std::uint64_t count,
                                             bool with_wld = true, PairedWld* paired = nullptr, bool with_dtw = true) {
    const int dtw_bits = dtw_bits_for(max_code);
    const std::vector<StoredHalf> halves = one_sided_candidates(header, spec.dtw_version);
    // A compact .wld's positions that a probe's search answers (version 4).
    const std::function<bool(std::uint64_t)> left_out =
        with_wld && spec.wld_version == 4 ? left_out_of(header) : nullptr;
    std::vector<CompressedBlock> blocks(count);
    work_profile::Step step(work_profile::Kind::compress, count);
    tbb::parallel_for(std::uint64_t{0}, count, [&](std::uint64_t i) {
        const auto piece = step.piece();
        const std::uint64_t b = first + i;
        const std::uint64_t start = header.block_first(b);
        const std::span<std::uint32_t> codes = block_scratch<std::uint32_t, BlockArray::codes>(header.block_values(b));
        values(start, codes);
        for (std::uint32_t c : codes)
            if (c != dont_care && c > max_code)
                throw std::runtime_error("a DTW code of " + std::to_string(c) + " exceeds the largest announced, " +
                                         std::to_string(max_code));
        CompressedBlock& out = blocks[i];
        for (const StoredHalf half : with_dtw ? halves : std::vector<StoredHalf>{}) {
            const auto part = stored_part(header, half, start, codes);
            if (!part) {
                out.dtw.emplace_back();
                continue;
            }
            out.dtw.emplace_back(zstd_compress(dtw_bytes(*part, dtw_bits, spec.dtw_version), spec.dtw_compression_level));
        }
        if (left_out)
            for (std::size_t k = 0; k < codes.size(); ++k)
                if (codes[k] != dont_care && left_out(start + k)) codes[k] = dont_care;
        if (paired) paired->put(start, codes);
        if (!with_wld || paired) return;
        fill_dont_care(codes);
        out.wld = zstd_compress(wld_bytes(codes), spec.wld_compression_level);
    });
    return blocks;
}

// The header of the .wld or .dtw (`kind`) of a table of `header`, encoded:
// its size (and so where its blocks start) known. The file is of version
// `dtw_version` (a .wld's version there), and a .dtw stores `half`.
TableHeader file_header(TableHeader header, TableKind kind, std::uint32_t max_code, std::uint32_t dtw_version = 1,
                        StoredHalf half = StoredHalf::both) {
    header.kind = kind;
    header.value_bits = kind == TableKind::wld ? 2 : dtw_bits_for(max_code);
    if (kind == TableKind::wld) header.version = dtw_version;
    if (kind == TableKind::dtw) {
        header.version = dtw_version;
        header.stored = half;
    }
    encode_header(header);
    return header;
}

// The half of the smaller .dtw, of the bytes of the candidates' blocks (the
// first if equal): the sizes a team's members know of each other's blocks.
std::size_t smaller(const std::vector<std::uint64_t>& sizes) {
    return static_cast<std::size_t>(std::min_element(sizes.begin(), sizes.end()) - sizes.begin());
}

// A one-sided file being written as each candidate half (the headers'
// `stored`), blocks added in order; finish() keeps the one of fewer block
// bytes and drops the others' temporary files.
class CandidateFiles {
public:
    CandidateFiles(const std::filesystem::path& path, const std::vector<TableHeader>& headers) {
        for (std::size_t i = 0; i < headers.size(); ++i) files_.emplace_back(path, headers[i], i == 0 ? "" : "candidate");
    }
    // Block i of each candidate, none where it holds none of the block's positions.
    void add(const std::vector<std::optional<std::vector<std::byte>>>& blocks) {
        for (std::size_t i = 0; i < files_.size(); ++i)
            if (blocks[i]) files_[i].add_block(*blocks[i]);
    }
    // The first (the one file where only one is written).
    FileWriter& front() { return files_.front(); }
    void flush() {
        for (FileWriter& f : files_) f.flush();
    }
    // The kept file's size and table checksum.
    std::pair<std::uint64_t, std::uint64_t> finish() {
        std::vector<std::uint64_t> sizes;
        for (const FileWriter& f : files_) sizes.push_back(f.block_bytes());
        return files_[smaller(sizes)].finish();
    }

private:
    std::deque<FileWriter> files_;  // not movable: a deque keeps them in place
};

// The files of a table, their blocks added in order: the .wld and each
// candidate .dtw, or the one chosen.
class TableFiles {
public:
    TableFiles(const std::filesystem::path& directory, TableHeader header, std::uint32_t max_code,
               std::uint32_t dtw_version, std::vector<StoredHalf> halves, std::uint32_t wld_version = 1) {
        written_.max_code = max_code;
        written_.dtw_bits = dtw_bits_for(max_code);
        written_.wld = directory / table_file_name(header.material, TableKind::wld);
        written_.dtw = directory / table_file_name(header.material, TableKind::dtw);
        wld_.emplace(written_.wld, file_header(header, TableKind::wld, max_code, wld_version));
        std::vector<TableHeader> headers;
        for (const StoredHalf half : halves) headers.push_back(file_header(header, TableKind::dtw, max_code, dtw_version, half));
        dtw_.emplace(written_.dtw, headers);
    }
    void add(const CompressedBlock& block) {
        wld_->add_block(block.wld);
        dtw_->add(block.dtw);
    }
    // The .dtw's part of a block whose .wld is written apart (PairedWld).
    void add_dtw(const CompressedBlock& block) { dtw_->add(block.dtw); }
    FileWriter& wld() { return *wld_; }
    // A block that another writer put in place: the .wld's and the .dtw's
    // size and checksum (of the one .dtw, which has none where `dtw_size` is 0).
    void add_written(std::uint64_t wld_size, std::uint64_t wld_checksum, std::uint64_t dtw_size,
                     std::uint64_t dtw_checksum) {
        wld_->add_written(wld_size, wld_checksum);
        if (dtw_size > 0) dtw_->front().add_written(dtw_size, dtw_checksum);
    }
    void flush() {
        wld_->flush();
        dtw_->flush();
    }
    // Keeps the smaller .dtw; the other's temporary file goes.
    WrittenTables finish() {
        std::tie(written_.wld_bytes, written_.wld_checksum) = wld_->finish();
        std::tie(written_.dtw_bytes, written_.dtw_checksum) = dtw_->finish();
        return written_;
    }

private:
    WrittenTables written_;
    std::optional<FileWriter> wld_;
    std::optional<CandidateFiles> dtw_;
};

}  // namespace

WrittenTables write_tables(const std::filesystem::path& directory, const TableSpec& spec, const ValueSource& values) {
    const TableHeader header = header_of(spec);
    const std::uint64_t blocks = header.block_count();
    auto block_codes = [&](std::uint64_t b, std::vector<std::uint32_t>& codes) {
        codes.resize(header.block_values(b));
        values(header.block_first(b), codes);
    };
    const std::uint32_t max_code = spec.max_code ? *spec.max_code : tbb::parallel_reduce(
        tbb::blocked_range<std::uint64_t>(0, blocks), std::uint32_t{0},
        [&](const tbb::blocked_range<std::uint64_t>& r, std::uint32_t m) {
            std::vector<std::uint32_t> codes;
            for (std::uint64_t b = r.begin(); b != r.end(); ++b) {
                block_codes(b, codes);
                for (std::uint32_t c : codes)
                    if (c != dont_care) m = std::max(m, c);
            }
            return m;
        },
        [](std::uint32_t a, std::uint32_t b) { return std::max(a, b); });
    const std::uint32_t wld_version = wld_version_of(spec);
    TableFiles files(directory, header, max_code, spec.dtw_version, one_sided_candidates(header, spec.dtw_version),
                     wld_version);
    std::optional<PairedWld> paired;
    if (file_header(header, TableKind::wld, max_code, wld_version).paired()) paired.emplace(header, 0, header.positions());
    for (std::uint64_t first = 0; first < blocks; first += write_batch_blocks)
        for (const CompressedBlock& b : compress_blocks(header, spec, max_code, values, first,
                                                        std::min(write_batch_blocks, blocks - first), true,
                                                        paired ? &*paired : nullptr))
            paired ? files.add_dtw(b) : files.add(b);
    if (paired) paired->write(files.wld(), spec.wld_compression_level);
    return files.finish();
}

WrittenTable write_wld_table(const std::filesystem::path& directory, const TableSpec& spec, const ValueSource& values) {
    const TableHeader header = file_header(header_of(spec), TableKind::wld, 0, wld_version_of(spec));
    WrittenTable written;
    written.path = directory / table_file_name(spec.material, TableKind::wld);
    FileWriter file(written.path, header);
    std::optional<PairedWld> paired;
    if (header.paired()) paired.emplace(header, 0, header.positions());
    const std::uint64_t blocks = header.block_count();
    for (std::uint64_t first = 0; first < blocks; first += write_batch_blocks)
        for (const CompressedBlock& b : compress_blocks(header, spec, max_dtw_code, values, first,
                                                        std::min(write_batch_blocks, blocks - first), true,
                                                        paired ? &*paired : nullptr, false))
            if (!paired) file.add_block(b.wld);
    if (paired) paired->write(file, spec.wld_compression_level);
    std::tie(written.bytes, written.checksum) = file.finish();
    return written;
}

WrittenTable write_dtw_table(const std::filesystem::path& directory, const TableSpec& spec, const ValueSource& values) {
    if (!spec.max_code) throw std::logic_error("a .dtw alone is written with an announced largest code");
    const TableHeader header = header_of(spec);
    std::vector<TableHeader> headers;
    for (const StoredHalf half : one_sided_candidates(header, spec.dtw_version))
        headers.push_back(file_header(header, TableKind::dtw, *spec.max_code, spec.dtw_version, half));
    WrittenTable written;
    written.path = directory / table_file_name(spec.material, TableKind::dtw);
    CandidateFiles files(written.path, headers);
    const std::uint64_t blocks = header.block_count();
    for (std::uint64_t first = 0; first < blocks; first += write_batch_blocks)
        for (const CompressedBlock& b : compress_blocks(header, spec, *spec.max_code, values, first,
                                                        std::min(write_batch_blocks, blocks - first), false))
            files.add(b.dtw);
    std::tie(written.bytes, written.checksum) = files.finish();
    return written;
}

WrittenTables write_tables(Team& team, const std::filesystem::path& directory, const TableSpec& spec,
                           std::uint64_t first, std::uint64_t count, const ValueSource& values) {
    if (!spec.max_code) throw std::logic_error("a team writes tables with an announced largest code");
    const TableHeader header = header_of(spec);
    const std::uint32_t wld_version = wld_version_of(spec);
    const std::uint64_t first_block = first >> header.block_shift;
    const std::uint64_t end_block = (first + count + header.block_positions() - 1) >> header.block_shift;
    if (count > 0 && first != first_block << header.block_shift)
        throw std::logic_error("a team member's range does not start at a block");
    // A .wld in placement order: each member writes the same range of its
    // positions, gathered from every member (PairedWld::exchange()).
    std::optional<PairedWld> paired;
    if (file_header(header, TableKind::wld, *spec.max_code, wld_version).paired())
        paired.emplace(header, first, count, true);
    std::vector<CompressedBlock> mine = compress_blocks(header, spec, *spec.max_code, values, first_block,
                                                        end_block - first_block, true, paired ? &*paired : nullptr);
    if (paired) {
        std::vector<std::size_t> at(team.size()), eight(team.size(), 8);
        std::vector<std::byte> counts(8 * at.size());
        for (std::size_t j = 0; j < at.size(); ++j) at[j] = 8 * j;
        store_u64(counts.data() + at[team.rank()], count);
        team.all_gather(counts.data(), at, eight);
        std::vector<std::uint64_t> firsts{0};  // the ranges, in member order from 0
        for (std::size_t j = 0; j < at.size(); ++j) firsts.push_back(firsts.back() + load_u64(counts.data() + at[j]));
        if (firsts.back() != header.positions() || firsts[team.rank()] != first)
            throw std::logic_error("the team's ranges do not make the table");
        paired->exchange(team, firsts);
        tbb::parallel_for(std::size_t{0}, mine.size(), [&](std::size_t i) {
            mine[i].wld = paired->compressed(first_block + i, spec.wld_compression_level);
        });
    }
    // Every member learns every block's sizes and checksums (16 bytes a
    // file a block, the members' ranges in order; a .dtw candidate's size 0
    // where it has no such block), so that each knows where its own blocks
    // go in the files and member 0 can write the offsets, the block
    // checksums and the table checksum: the blocks themselves cross no
    // network. Every member picks the same .dtw from the sizes.
    const std::vector<StoredHalf> halves = one_sided_candidates(header, spec.dtw_version);
    const std::size_t entry = 16 * (1 + halves.size());
    const int members = team.size(), me = team.rank();
    std::vector<std::size_t> at(members), bytes(members, 8);
    std::vector<std::byte> numbers(8 * static_cast<std::size_t>(members));
    for (int j = 0; j < members; ++j) at[j] = 8 * static_cast<std::size_t>(j);
    store_u64(numbers.data() + at[me], mine.size());
    team.all_gather(numbers.data(), at, bytes);
    std::size_t entries = 0;
    for (int j = 0; j < members; ++j) {
        at[j] = entry * entries;
        bytes[j] = entry * load_u64(numbers.data() + 8 * static_cast<std::size_t>(j));
        entries += bytes[j] / entry;
    }
    if (entries != header.block_count()) throw std::logic_error("the team's ranges do not make the table");
    std::vector<std::byte> index(entry * entries);
    for (std::size_t i = 0; i < mine.size(); ++i) {
        std::byte* e = index.data() + at[me] + entry * i;
        store_u64(e, mine[i].wld.size());
        store_u64(e + 8, checksum(mine[i].wld));
        for (std::size_t h = 0; h < halves.size(); ++h) {
            if (!mine[i].dtw[h]) continue;
            store_u64(e + 16 * (h + 1), mine[i].dtw[h]->size());
            store_u64(e + 16 * (h + 1) + 8, checksum(*mine[i].dtw[h]));
        }
    }
    team.all_gather(index.data(), at, bytes);
    std::vector<std::uint64_t> sizes(halves.size());
    for (std::size_t i = 0; i < entries; ++i)
        for (std::size_t h = 0; h < halves.size(); ++h) sizes[h] += load_u64(index.data() + entry * i + 16 * (h + 1));
    const std::size_t kept = smaller(sizes);
    const auto dtw_entry = [&](std::size_t i) { return index.data() + entry * i + 16 * (kept + 1); };
    // Member 0 creates the files' temporary names; then each member writes
    // its blocks where the sizes before them put them; then member 0 writes
    // the offsets and checksums and renames the files into place.
    std::optional<TableFiles> files;
    std::string failure;
    try {
        if (me == 0) {
            files.emplace(directory, header, *spec.max_code, spec.dtw_version, std::vector<StoredHalf>{halves[kept]},
                          wld_version);
            files->flush();
        }
    } catch (const std::exception& e) {
        failure = e.what();
    }
    if (team.all_max(failure.empty() ? 0 : 1) != 0)
        throw std::runtime_error(failure.empty() ? "member 0 of the team could not create the table files" : failure);
    try {
        std::uint64_t wld_at = file_header(header, TableKind::wld, *spec.max_code, wld_version).blocks_start();
        std::uint64_t dtw_at = file_header(header, TableKind::dtw, *spec.max_code, spec.dtw_version, halves[kept]).blocks_start();
        for (std::size_t i = 0; i < at[me] / entry; ++i) {
            wld_at += load_u64(index.data() + entry * i);
            dtw_at += load_u64(dtw_entry(i));
        }
        std::vector<FilePiece> wld, dtw;
        for (const CompressedBlock& b : mine) {
            wld.push_back({wld_at, b.wld});
            wld_at += b.wld.size();
            if (!b.dtw[kept]) continue;
            dtw.push_back({dtw_at, *b.dtw[kept]});
            dtw_at += b.dtw[kept]->size();
        }
        write_into(ReplacedFile::temporary_of(directory / table_file_name(header.material, TableKind::wld)), wld);
        write_into(ReplacedFile::temporary_of(directory / table_file_name(header.material, TableKind::dtw)), dtw);
    } catch (const std::exception& e) {
        failure = e.what();
    }
    if (team.all_max(failure.empty() ? 0 : 1) != 0)
        throw std::runtime_error(failure.empty() ? "a member of the team could not write its blocks of " +
                                                       header.material.name() + "'s table files"
                                                 : failure);
    if (me != 0) return {};
    for (std::size_t i = 0; i < entries; ++i) {
        const std::byte* e = index.data() + entry * i;
        files->add_written(load_u64(e), load_u64(e + 8), load_u64(dtw_entry(i)), load_u64(dtw_entry(i) + 8));
    }
    return files->finish();
}

WrittenTable write_rule_table(const std::filesystem::path& directory, const TableSpec& spec, const RuleRecord& rules,
                              const ValueSource& values) {
    TableHeader header = header_of(spec);
    header.kind = TableKind::rul;
    header.value_bits = 8;
    header.rules = rules;
    header.version = spec.rul_version;
    const std::vector<StoredHalf> halves = one_sided_candidates(header, spec.rul_version);
    std::vector<TableHeader> headers;
    for (const StoredHalf half : halves) {
        headers.push_back(header);
        headers.back().stored = half;
    }
    // Version 2 leaves the positions the .wld calls draws to it: the
    // rules only ever turn a win or a loss into a draw.
    std::optional<TableFile> wld;
    if (header.draws_left_out()) {
        const std::filesystem::path path = directory / table_file_name(spec.material, TableKind::wld);
        try {
            wld.emplace(TableFile::open(path, {spec.variant, spec.material, TableKind::wld}));
        } catch (const TableError& e) {
            throw std::runtime_error(std::string("a .rul of format version 2 leaves its draws to the .wld, which "
                                                 "cannot be read: ") + e.what() + " (build the plain table first)");
        }
    }
    WrittenTable written;
    written.path = directory / table_file_name(spec.material, TableKind::rul);
    CandidateFiles files(written.path, headers);
    const std::uint64_t blocks = header.block_count();
    for (std::uint64_t first = 0; first < blocks; first += write_batch_blocks) {
        const std::uint64_t count = std::min(write_batch_blocks, blocks - first);
        std::vector<std::vector<std::optional<std::vector<std::byte>>>> compressed(count);
        work_profile::Step step(work_profile::Kind::compress, count);
        tbb::parallel_for(std::uint64_t{0}, count, [&](std::uint64_t i) {
            const auto piece = step.piece();
            const std::uint64_t b = first + i, start = header.block_first(b);
            const std::span<std::uint32_t> codes = block_scratch<std::uint32_t, BlockArray::codes>(header.block_values(b));
            values(start, codes);
            std::optional<WldReader> plain;  // the draws a .rul of version 2 leaves to the .wld
            if (wld) plain.emplace(*wld);
            for (std::size_t k = 0; k < codes.size(); ++k) {
                if (codes[k] == dont_care) continue;
                if (codes[k] > 255)
                    throw std::runtime_error("a rule code of " + std::to_string(codes[k]) + " does not fit a .rul file");
                // Either value array: the .wld's position is g modulo its positions.
                if (!plain || plain->wdl((start + k) % wld->header().positions()) != Wdl::draw) continue;
                if (codes[k] != rule_code(Value::draw()))
                    throw std::runtime_error("position " + std::to_string(start + k) + " of " + spec.material.name() +
                                             " is a draw in its .wld and rule code " + std::to_string(codes[k]) +
                                             " under the rules, which only ever make a win or a loss a draw");
                codes[k] = dont_care;
            }
            for (const StoredHalf half : halves) {
                const auto part = stored_part(header, half, start, codes);
                compressed[i].push_back(part ? std::optional(zstd_compress(dtw_bytes(*part, 8, 1), spec.rul_compression_level))
                                             : std::nullopt);
            }
        });
        for (const auto& block : compressed) files.add(block);
    }
    std::tie(written.bytes, written.checksum) = files.finish();
    return written;
}

}  // namespace dtb
