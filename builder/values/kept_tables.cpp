#include "builder/values/kept_tables.hpp"

#include <algorithm>
#include <stdexcept>

#include <tbb/task_arena.h>

#include "builder/system/process.hpp"

namespace dtb {

std::uint64_t KeptTables::Entry::bytes() const noexcept {
    return (values ? values->bytes() : 0) + (packed ? packed->held_bytes() : 0) + (rules ? rules->bytes() : 0);
}

void KeptTables::add_use(const Material& m, TableKind kind) {
    const std::lock_guard lock(mutex_);
    ++entries_[{m, kind}].uses;
}

int KeptTables::uses(const Material& m, TableKind kind) {
    const std::lock_guard lock(mutex_);
    const Entry* e = entry(m, kind);
    return e ? e->uses : 0;
}

bool KeptTables::used(const Material& m, TableKind kind) {
    const std::lock_guard lock(mutex_);
    const auto it = entries_.find({m, kind});
    if (it == entries_.end() || --it->second.uses > 0) return false;
    drop(it);
    return true;
}

void KeptTables::let_go(const Material& m, TableKind kind) {
    const std::lock_guard lock(mutex_);
    if (const auto it = entries_.find({m, kind}); it != entries_.end()) drop(it);
}

void KeptTables::on_disk(const Material& m) {
    const std::lock_guard lock(mutex_);
    entries_[{m, TableKind::dtw}].on_disk = true;
}

std::shared_ptr<const SolvedValues> KeptTables::find(const Material& m, const Reads* reader) {
    const std::lock_guard lock(mutex_);
    return find_locked(m, reader);
}

std::shared_ptr<const SolvedValues> KeptTables::find_whole(const Material& m, const Reads* reader) {
    const std::lock_guard lock(mutex_);
    auto values = find_locked(m, reader);
    return values && values->whole() ? values : nullptr;
}

std::vector<std::shared_ptr<const SolvedValues>> KeptTables::find_all(std::span<const Material> materials,
                                                                      const Reads* reader) {
    const std::lock_guard lock(mutex_);
    std::vector<std::shared_ptr<const SolvedValues>> found;
    for (const Material& m : materials)
        if (auto values = find_locked(m, reader); values && values->whole()) found.push_back(std::move(values));
    return found;
}

void KeptTables::keep(std::shared_ptr<const SolvedValues> values) {
    const std::lock_guard lock(mutex_);
    Entry& e = entries_[{values->material, TableKind::dtw}];
    if (e.values || e.packed) {
        const bool whole = e.first == 0 && e.count == values->positions();
        if (whole || !values->whole()) return;
        bytes_ -= e.bytes();
        e.values.reset();
        e.packed.reset();
    }
    e.used_at = ++tick_;
    e.per_side = values->positions_per_side;
    e.first = values->first;
    e.count = values->codes.size();
    e.max_code = values->max_code;
    e.marks = !values->capture.empty();
    e.values = std::move(values);
    // Counted now: room is made by packing the unused values (these too,
    // if they come to it), and if even that is not enough they are let go.
    add(e.values->bytes());
    if (make_room_locked(0, nullptr)) return;
    if (e.values) {  // still in use by whoever kept them, so not packed: the store lets go of them
        bytes_ -= e.values->bytes();
        e.values.reset();
    }
    if (e.packed && bytes_ > budget_) {
        bytes_ -= e.packed->held_bytes();
        e.packed.reset();
    }
}

std::shared_ptr<const RuleValues> KeptTables::find_rules(const Material& m) {
    const std::lock_guard lock(mutex_);
    Entry* e = entry(m, TableKind::rul);
    if (!e || !e->rules) return nullptr;
    e->used_at = ++tick_;
    return e->rules;
}

void KeptTables::keep(std::shared_ptr<const RuleValues> values) {
    const std::lock_guard lock(mutex_);
    if (!make_room_locked(values->bytes(), nullptr)) return;
    Entry& e = entries_[{values->material, TableKind::rul}];
    if (e.rules) bytes_ -= e.rules->bytes();
    e.used_at = ++tick_;
    e.rules = std::move(values);
    add(e.rules->bytes());
}

bool KeptTables::make_room(std::uint64_t bytes, const Reads* reader) {
    const std::lock_guard lock(mutex_);
    return make_room_locked(bytes, reader);
}

void KeptTables::hold(std::uint64_t bytes) {
    const std::lock_guard lock(mutex_);
    add(bytes);
}

void KeptTables::free(std::uint64_t bytes) {
    const std::lock_guard lock(mutex_);
    bytes_ -= bytes;
}

KeptTables::Held::Held(KeptTables& tables, std::uint64_t bytes, const Reads* reader) : tables_(tables), bytes_(bytes) {
    const std::lock_guard lock(tables_.mutex_);
    tables_.make_room_locked(bytes_, reader);
    tables_.add(bytes_);
}

std::uint64_t KeptTables::bytes() {
    const std::lock_guard lock(mutex_);
    return bytes_;
}

KeptTables::Counts KeptTables::counts() {
    const std::lock_guard lock(mutex_);
    return counts_;
}

KeptTables::Entry* KeptTables::entry(const Material& m, TableKind kind) {
    const auto it = entries_.find({m, kind});
    return it == entries_.end() ? nullptr : &it->second;
}

std::shared_ptr<const SolvedValues> KeptTables::find_locked(const Material& m, const Reads* reader) {
    Entry* e = entry(m, TableKind::dtw);
    if (!e || (!e->values && !e->packed)) return nullptr;
    e->used_at = ++tick_;
    if (e->values) return e->values;
    // Packed: unpacked beside its frames, if there is room.
    const std::uint64_t unpacked =
        e->marks ? SolvedValues::bytes_for(e->count) : 2 * e->count;
    if (!make_room_locked(unpacked, reader, e)) return nullptr;
    const Clock::time_point start = Clock::now();
    auto values = std::make_shared<SolvedValues>(m, e->per_side, e->first, e->count);
    if (!e->marks) values->drop_capture_marks();
    tbb::this_task_arena::isolate([&] {  // its threads take no task that could want the mutex
        unpack_range(e->packed->bytes, e->packed->frame_bytes, *values, e->first, e->count, "a kept table");
    });
    values->max_code = e->max_code;
    e->values = std::move(values);
    add(e->values->bytes());
    ++counts_.unpacked;
    counts_.unpacking_seconds += seconds_since(start);
    return e->values;
}

// Called with the mutex held; `spare` (may be null) is neither packed nor let go.
bool KeptTables::make_room_locked(std::uint64_t bytes, const Reads* reader, const Entry* spare) {
    const auto fits = [&] { return bytes_ + bytes <= budget_; };
    if (fits()) return true;
    // Those with the fewest uses left first, then the least recently used.
    const auto first_to_go = [](const Entry* a, const Entry* b) {
        return a->uses != b->uses ? a->uses < b->uses : a->used_at < b->used_at;
    };
    const auto unused = [&](auto want) {
        std::vector<Entry*> out;
        for (auto& [key, e] : entries_)
            if (&e != spare && want(key, e)) out.push_back(&e);
        std::sort(out.begin(), out.end(), first_to_go);
        return out;
    };
    // Plain values in memory that no job holds: packed (once), then let go of.
    for (Entry* e : unused([](const Key&, const Entry& e) { return e.values && e.values.use_count() == 1; })) {
        if (fits()) return true;
        if (!e->packed) pack(*e);
        bytes_ -= e->values->bytes();
        e->values.reset();
    }
    if (!reader) return fits();
    const auto read = [&](const Key& key) {
        return key.second == reader->kind &&
               std::find(reader->materials.begin(), reader->materials.end(), key.first) != reader->materials.end();
    };
    for (Entry* e : unused([&](const Key& key, const Entry& e) {
             return e.rules && e.rules.use_count() == 1 && !read(key);
         })) {
        if (fits()) return true;
        bytes_ -= e->rules->bytes();
        e->rules.reset();
    }
    std::vector<Entry*> packed =
        unused([&](const Key& key, const Entry& e) { return e.packed && !e.values && !read(key); });
    std::uint64_t droppable = 0;  // let go only if that makes the room
    for (const Entry* e : packed) droppable += e->packed->held_bytes();
    if (bytes_ - droppable + bytes > budget_) return false;
    // Those on disk first: the others are read back from their table files.
    std::stable_partition(packed.begin(), packed.end(), [](const Entry* e) { return e->on_disk; });
    for (Entry* e : packed) {
        if (fits()) break;
        bytes_ -= e->packed->held_bytes();
        e->packed.reset();
        ++counts_.let_go;
    }
    std::erase_if(entries_, [&](const auto& kv) { return &kv.second != spare && kv.second.empty() && kv.second.uses <= 0; });
    return fits();
}

// Called with the mutex held: its threads take no other task meanwhile,
// which could wait for the mutex.
void KeptTables::pack(Entry& e) {
    const Clock::time_point start = Clock::now();
    e.packed = std::make_unique<PackedRange>(
        tbb::this_task_arena::isolate([&] { return pack_range(*e.values, e.first, e.count); }));
    add(e.packed->held_bytes());
    ++counts_.packed;
    counts_.packed_from_bytes += e.values->bytes();
    counts_.packed_to_bytes += e.packed->held_bytes();
    counts_.packing_seconds += seconds_since(start);
}

void KeptTables::drop(std::map<Key, Entry>::iterator it) {
    bytes_ -= it->second.bytes();
    if (it->second.uses > 0) {
        it->second.values.reset();
        it->second.packed.reset();
        it->second.rules.reset();
    } else {
        entries_.erase(it);
    }
}

void KeptTables::add(std::uint64_t bytes) {
    bytes_ += bytes;
    counts_.peak_bytes = std::max(counts_.peak_bytes, bytes_);
}

}  // namespace dtb
