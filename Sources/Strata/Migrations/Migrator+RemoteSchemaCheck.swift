import Foundation

// `eraseDatabaseOnSchemaChange` for Swift migrations on an engine other than SQLite: the applied migrations
// run again in a scratch schema of the same database (their SQL is the engine's, which an in-memory SQLite
// database cannot run), on a connection of their own, and what they make there is compared with the
// handle's schema as on SQLite. The scratch schema is dropped in every case.
extension Migrator {
    /// Whether `replay` (the applied migrations), run on a new connection whose `search_path` is a new empty
    /// schema, makes a table, column, index, view or trigger `db`'s current schema lacks or has otherwise.
    /// The scratch schema alone is on that connection's path, so a migration that names no schema never
    /// reaches `db`'s tables; one that fails there (it reads a table a model makes, or a type of another
    /// schema) tells nothing: the database is kept, as on SQLite.
    func remoteReplayMakesAnotherSchema(_ remote: any RemoteConnection, than db: Database, replay: Migrator) throws -> Bool {
        let connection: any RemoteConnection
        do { connection = try remote.openAnother() } catch { throw remote.databaseError(error) }
        let schema = connection.dialect.quote("strata_replay_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: ""))
        let scratch: Database
        do {
            try connection.execute("CREATE SCHEMA \(schema); SET search_path TO \(schema)")
            scratch = try Database(remote: connection)
        } catch {
            try? connection.execute("DROP SCHEMA IF EXISTS \(schema) CASCADE")
            try? connection.close()
            throw remote.databaseError(error)
        }
        defer {
            try? connection.execute("DROP SCHEMA IF EXISTS \(schema) CASCADE")
            try? scratch.close()
        }
        do { try replay.migrate(scratch) } catch { return false }
        do {
            return try Self.schema(try connection.introspector(), differsFrom: try remote.introspector())
        } catch {
            throw remote.databaseError(error)
        }
    }

    /// Whether `made` has a table or view (but the migrations' own record) that `existing` lacks, or has
    /// otherwise: a column's declared type, NOT NULL, default or key part; an index (by name: its columns,
    /// order, uniqueness, partiality); a trigger; a view's query. What `existing` has beyond is not compared.
    static func schema(_ made: any SchemaIntrospector, differsFrom existing: any SchemaIntrospector) throws -> Bool {
        for name in try made.tableNames() where name != Migrator.tableName {
            guard let expected = try made.table(name) else { continue }
            guard let actual = try existing.table(name), actual.isView == expected.isView else { return true }
            if expected.isView {
                if actual.createSQL != expected.createSQL { return true }
                continue
            }
            for column in expected.columns {
                guard let other = actual.column(named: column.name), other.declaredType == column.declaredType, other.notNull == column.notNull,
                      other.defaultSQL == column.defaultSQL, other.primaryKeyPosition == column.primaryKeyPosition else { return true }
            }
            for index in expected.indices {
                guard let other = actual.indices.first(where: { $0.name == index.name }), other.unique == index.unique,
                      other.partial == index.partial, other.columns == index.columns, other.descending == index.descending else { return true }
            }
            if expected.triggerSQL.contains(where: { !actual.triggerSQL.contains($0) }) { return true }
        }
        return false
    }
}
