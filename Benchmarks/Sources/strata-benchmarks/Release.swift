// The release workload (issue 14): letting go of 200,000 live objects fetched just before (untimed), beside
// the same number of plain Swift class instances holding the same values. What Strata adds per object:
// leaving the identity map and freeing the dirty-tracking snapshot.
import CSQLiteBench
import Foundation

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
        var objects = try RawContender.fetchAll(db).map { item -> PlainClassItem in
            let object = PlainClassItem()
            object.id = item.id; object.i0 = item.i0; object.i9 = item.i9
            return object
        }
        try Verification.check(objects.count == job.rows, "raw release: \(objects.count) objects")
        let (duration, _) = measure { objects = [] }
        withExtendedLifetime(objects) {}
        return duration
    }
}

#if STRATA_MODELS
import Strata

extension ReleaseWorkload {
    static func strata(_ job: Job) throws -> Duration {
        try StrataContender.checkItemTableInSync(job)
        var configuration = Strata.Database.Configuration()
        configuration.logger.logLevel = .warning
        let db = try Strata.Database(path: job.path, configuration: configuration)
        defer { try? db.close() }
        var objects = try db.objects(StrataItem.self)
        try Verification.check(objects.count == job.rows, "Strata release: \(objects.count) objects")
        let (duration, _) = measure { objects = [] }
        withExtendedLifetime(objects) {}
        return duration
    }
}
#endif
