import Foundation
import Logging
import StrataTestSupport
import Testing
@testable import Strata

// Review 18 (issue 38, point 5): routine schema sync logs at debug; a table rebuild (a change the user
// should see) at info. The logger is the handle's own (`Database.Configuration.logger`), never the global
// `LoggingSystem`, so that parallel tests do not see each other's records.

/// What a logger received: each record's level and message.
private final class R18LogRecord: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [(level: Logger.Level, message: String)] = []
    var records: [(level: Logger.Level, message: String)] { lock.withLock { stored } }
    func append(_ level: Logger.Level, _ message: String) { lock.withLock { stored.append((level, message)) } }
    /// The messages at info or above.
    var visible: [String] { records.filter { $0.level >= .info }.map(\.message) }
}

private struct R18LogHandler: LogHandler {
    let record: R18LogRecord
    var logLevel: Logger.Level = .trace
    var metadata: Logger.Metadata = [:]
    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }
    func log(event: LogEvent) {
        record.append(event.level, "\(event.message)")
    }
}

private final class R18LogNoteV1: Model {
    static let tableName = "r18_log_note"
    static let indices = [["title"]]
    var id: Int64 = 0
    var title = ""
    required init() {}
}

/// A column more: an ALTER TABLE ADD COLUMN.
private final class R18LogNoteV2: Model {
    static let tableName = "r18_log_note"
    static let indices = [["title"]]
    var id: Int64 = 0
    var title = ""
    var words = 0
    required init() {}
}

/// `title` optional now: its NOT NULL goes, which takes a rebuild.
private final class R18LogNoteV3: Model {
    static let tableName = "r18_log_note"
    static let schemaRebuild = SchemaRebuild.whenNeeded
    static let indices = [["title"]]
    var id: Int64 = 0
    var title: String?
    var words = 0
    required init() {}
}

@Suite struct Review18SyncLogTests {
    private func database(_ record: R18LogRecord) throws -> TemporaryDatabase {
        var configuration = Database.Configuration()
        configuration.logger = Logger(label: "r18") { _ in R18LogHandler(record: record) }
        return try TemporaryDatabase(configuration: configuration)
    }

    /// Creating a table with an index, then adding a column: every sync statement is logged, at debug
    /// only; nothing reaches info.
    @Test func routineSyncLogsOnlyAtDebug() throws {
        let record = R18LogRecord()
        let temp = try database(record)
        let db = temp.db
        #expect(try db.syncSchema(R18LogNoteV1.self).steps.count == 2)
        #expect(try db.syncSchema(R18LogNoteV2.self).steps.count == 1)
        let sync = record.records.filter { $0.message.hasPrefix("Strata schema sync: ") }
        #expect(sync.map(\.level) == [.debug, .debug, .debug], "\(sync)")
        #expect(sync.last?.message == #"Strata schema sync: ALTER TABLE "r18_log_note" ADD COLUMN "words" INTEGER NOT NULL DEFAULT 0"#)
        #expect(record.visible.isEmpty, "\(record.visible)")
        #expect(try db.value(String.self, "SELECT group_concat(name) FROM pragma_table_info('r18_log_note')") == "id,title,words")
    }

    /// A rebuild (removing a NOT NULL) says so once at info, naming the table, model and column; its
    /// statements stay at debug.
    @Test func aRebuildLogsAtInfo() throws {
        let record = R18LogRecord()
        let temp = try database(record)
        let db = temp.db
        _ = try db.syncSchema(R18LogNoteV2.self)
        let note = R18LogNoteV2()
        note.title = "kept"
        try db.save(note)
        let plan = try db.syncSchema(R18LogNoteV3.self)
        #expect(plan.rebuildsTable)
        #expect(record.visible == [#"Strata schema sync: rebuilding table "r18_log_note" of R18LogNoteV3 for column "title" (its rows are copied into a new table)"#],
                "\(record.visible)")
        let statements = record.records.filter { $0.message.hasPrefix("Strata schema sync: ") && $0.level == .debug }
        #expect(statements.count >= 3, "\(statements)")
        #expect(try db.value(Int.self, "SELECT \"notnull\" FROM pragma_table_info('r18_log_note') WHERE name = 'title'") == 0)
        #expect(try db.value(String.self, "SELECT quote(title) FROM r18_log_note") == "'kept'")
    }
}
