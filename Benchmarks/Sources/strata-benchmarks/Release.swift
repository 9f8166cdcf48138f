// The release workload (issue 14): letting go of 200,000 live objects fetched just before (untimed), beside
// the same number of plain Swift class instances holding the same values. What Strata adds per object:
// leaving the identity map and freeing the dirty-tracking snapshot.
//
// Each run also measures the heap its held objects take (glibc's mallinfo2, bytes in use after the fetch
// minus before, over the objects: the array's 8-byte slot included for both), printed under the table.
// Every contender scans the table first (`warmUpScan`), so that SQLite's page cache, which is bounded
// (2 MiB by default) and not the objects', is full before the heap is measured.
import CSQLiteBench
import Foundation

/// Bytes per live object of each contender, per workload, the same in every round within a few bytes (the
/// last kept).
final class MemoryFigures {
    nonisolated(unsafe) static let shared = MemoryFigures()
    var bytesPerObject: [String: [String: Double]] = [:]
    /// The heap chunk of one object's class instance (glibc: usable size + its 8-byte header), per workload.
    var chunkBytes: [String: [String: Int]] = [:]

    /// Records the chunk that holds `object`'s instance.
    func recordChunk(of object: AnyObject, _ name: String, in workload: String) {
        #if os(Linux)
        let usable = withExtendedLifetime(object) { strata_bench_usable_size(Unmanaged.passUnretained(object).toOpaque()) }
        chunkBytes[workload, default: [:]][name] = usable + 8
        #endif
    }

    /// The heap bytes in use (nil where glibc's mallinfo2 is not available).
    static func heapInUse() -> Int? {
        #if os(Linux)
        return strata_bench_heap_in_use()
        #else
        return nil
        #endif
    }

    func record(_ name: String, in workload: String, before: Int?, count: Int) {
        guard let before, let after = Self.heapInUse(), count > 0 else { return }
        bytesPerObject[workload, default: [:]][name] = Double(after - before) / Double(count)
    }

    /// One line: the reference (`baseline`) first, then every other contender with its ratio to it.
    func notes(for workload: String, baseline: String, order: [String], what: String) -> [String] {
        guard let figures = bytesPerObject[workload], let reference = figures[baseline] else { return [] }
        var line = String(format: "heap per held object (%@; mallinfo2, array slot included): %@ %.1f B",
                          what, baseline, reference)
        for name in order where name != baseline {
            guard let bytes = figures[name] else { continue }
            line += String(format: ", %@ %.1f B (%.2fx)", name, bytes, bytes / reference)
        }
        guard let chunks = chunkBytes[workload], let plain = chunks[baseline] else { return [line] }
        var chunkLine = "heap chunk of one instance (malloc_usable_size + 8): \(baseline) \(plain) B"
        for name in order where name != baseline {
            if let bytes = chunks[name] { chunkLine += ", \(name) \(bytes) B" }
        }
        return [line, chunkLine]
    }

    /// A scan of every row that fills SQLite's page cache before a heap measurement.
    static let warmUpScan = "SELECT sum(i0 + i9) FROM item"

    var releaseNotes: [String] {
        notes(for: "release", baseline: "plain class", order: ["GRDB Record", "Strata"], what: "id + 10 Int64")
    }
}

/// A plain class with the item's values: what releasing objects costs without an ORM.
final class PlainClassItem {
    var id: Int64 = 0
    var i0: Int64 = 0, i1: Int64 = 0, i2: Int64 = 0, i3: Int64 = 0, i4: Int64 = 0
    var i5: Int64 = 0, i6: Int64 = 0, i7: Int64 = 0, i8: Int64 = 0, i9: Int64 = 0
}

enum ReleaseWorkload {
    static func raw(_ job: Job) throws -> Duration {
        let db = try SQLiteC.open(job.path)
        defer { SQLiteC.close(db) }
        let items = try RawContender.fetchAll(db)
        let before = MemoryFigures.heapInUse()
        var objects = items.map { item -> PlainClassItem in
            let object = PlainClassItem()
            object.id = item.id; object.i0 = item.i0; object.i9 = item.i9
            return object
        }
        try Verification.check(objects.count == job.rows, "raw release: \(objects.count) objects")
        MemoryFigures.shared.recordChunk(of: objects[0], "plain class", in: "release")
        withExtendedLifetime(items) {   // freed after the measurement, not before it
            MemoryFigures.shared.record("plain class", in: "release", before: before, count: objects.count)
        }
        let (duration, _) = measure { objects = [] }
        withExtendedLifetime(objects) {}
        return duration
    }
}

#if STRATA_MODELS
import Strata

extension ReleaseWorkload {
    static func strata(_ job: Job) throws -> Duration {
        let db = try StrataContender.openItemTable(job)
        defer { try? db.close() }
        try db.syncSchema(StrataItem.self)   // first use before the heap is measured
        _ = try db.value(Int64.self, MemoryFigures.warmUpScan)
        let before = MemoryFigures.heapInUse()
        var objects = try db.objects(StrataItem.self)
        try Verification.check(objects.count == job.rows, "Strata release: \(objects.count) objects")
        MemoryFigures.shared.recordChunk(of: objects[0], "Strata", in: "release")
        MemoryFigures.shared.record("Strata", in: "release", before: before, count: objects.count)
        let (duration, _) = measure { objects = [] }
        withExtendedLifetime(objects) {}
        return duration
    }
}
#endif
