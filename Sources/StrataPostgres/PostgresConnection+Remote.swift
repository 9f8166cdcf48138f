import CLibPQ
import Strata

// The PostgreSQL connection as the engine a `Database` runs on (`RemoteConnection`): its name and location
// for messages, `?` spelled `$n`, the schema read from pg_catalog, cancellation from any thread, and its
// errors as `DatabaseError`s carrying the SQLSTATE and the nearest SQLite code.

extension PostgresConnection: RemoteConnection {
    package var engineName: String { "PostgreSQL" }

    package var location: String { Self.redacted(url) }

    package var isClosed: Bool { handle == nil }

    /// PostgreSQL's limit: the protocol counts parameters in 16 bits.
    package var maximumParameterCount: Int { 65_535 }

    package var transactionHasFailed: Bool {
        guard let handle else { return false }
        return PQtransactionStatus(handle) == PQTRANS_INERROR
    }

    package func engineSQL(_ sql: String) -> String { PostgresSQL.numberingPlaceholders(sql).sql }

    /// Every later transaction is READ ONLY (`default_transaction_read_only`): a write fails with 25006.
    package func refuseWrites() throws { try execute("SET default_transaction_read_only = on") }

    package func introspector() throws -> any SchemaIntrospector { try PostgresIntrospector(self) }

    package func openAnother() throws -> any RemoteConnection { try PostgresConnection(url: url) }

    /// The transaction's row counts per table of the search path, from `pg_stat_xact_user_tables` (counts
    /// not yet flushed to the cumulative statistics: read twice within one transaction, their difference is
    /// what the transaction wrote in between; rows of a rolled-back savepoint count too).
    package func writeCounts() throws -> [String: WriteCounts] {
        let statement = try cachedStatement("SELECT relname, n_tup_ins, n_tup_upd, n_tup_del FROM pg_stat_xact_user_tables "
                                            + "WHERE schemaname = ANY (current_schemas(false))")
        defer { statement.reset() }
        var counts: [String: WriteCounts] = [:]
        while try statement.step() {
            guard let name = statement.text(at: 0) else { continue }
            counts[name] = WriteCounts(inserted: Int64(statement.text(at: 1) ?? "") ?? 0, updated: Int64(statement.text(at: 2) ?? "") ?? 0,
                                       deleted: Int64(statement.text(at: 3) ?? "") ?? 0)
        }
        return counts
    }

    package var interrupter: @Sendable () -> Void {
        let canceller = self.canceller
        return { canceller.cancel() }
    }

    package func databaseError(_ error: any Error) -> any Error {
        guard let error = error as? PostgresError else { return error }
        return DatabaseError(code: Self.resultCode(sqlState: error.sqlState), message: error.message, sql: error.sql,
                             sqlState: error.sqlState ?? "XX000")
    }

    /// The SQLite code nearest a SQLSTATE, so that a `catch` written for SQLite's codes catches the same
    /// failure here: unique, foreign key, NOT NULL and CHECK violations; serialization failures and deadlocks
    /// as `.busy` (the transaction is to be run again); a cancelled statement as `.interrupt`; a connection
    /// failure as `.cannotOpen`; a read-only transaction as `.readOnly`; a privilege as `.permission`; a
    /// value too long or of the wrong form as `.tooBig` or `.mismatch`; statements refused in a failed
    /// transaction as `.abort`; anything else `.error`.
    static func resultCode(sqlState: String?) -> ResultCode {
        guard let state = sqlState else { return .error }
        switch state {
        case "23505": return .constraintUnique
        case "23503": return .constraintForeignKey
        case "23502": return .constraintNotNull
        case "23514": return .constraintCheck
        case "40001", "40P01": return .busy
        case "57014": return .interrupt
        case "25006": return .readOnly
        case "42501": return .permission
        case "22001": return .tooBig
        case "25P02": return .abort
        case "08003": return .misuse   // the connection was closed
        default: break
        }
        if state.hasPrefix("23") { return .constraint }
        if state.hasPrefix("08") { return .cannotOpen }
        if state.hasPrefix("22") { return .mismatch }
        return .error
    }

    /// `url` as messages show it: a password (`postgresql://app:secret@host/db`, `?password=secret`,
    /// `password=secret` in a conninfo string) as `***`.
    ///
    /// ```swift
    /// PostgresConnection.redacted("postgresql://app:secret@db/app")  // "postgresql://app:***@db/app"
    /// ```
    package static func redacted(_ url: String) -> String {
        var text = url
        if let scheme = text.range(of: "://"), let at = text[scheme.upperBound...].firstIndex(of: "@"),
           let colon = text[scheme.upperBound..<at].firstIndex(of: ":") {
            text = String(text[..<text.index(after: colon)]) + "***" + String(text[at...])
        }
        // `password=…` as a URL parameter (up to `&`) or a conninfo keyword (up to a space).
        var result = ""
        var rest = Substring(text)
        while let range = rest.range(of: "password=") {
            result += rest[..<range.upperBound] + "***"
            rest = rest[range.upperBound...]
            rest = rest[(rest.firstIndex(where: { $0 == "&" || $0 == " " }) ?? rest.endIndex)...]
        }
        return result + rest
    }
}
