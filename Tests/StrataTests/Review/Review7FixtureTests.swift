import Foundation
import StrataTestSupport
import Testing
@testable import Strata

// Review 7: issue 9's write integrity, checked over every fixture database other tools wrote
// (../shared/fixtures, always on a copy, skipped where the folder is absent). For each table a model can
// map: every row fetches; a one-property change writes that one column in its neighbours' storage class
// and leaves every other cell of every row byte-identical; an unchanged save runs no statement; an insert
// writes the formats the existing rows use and takes a key the way the layout requires; a delete removes
// exactly that row; two handles inserting at once lose nothing; a UNIQUE violation names model, columns
// and key.

// MARK: Harness

private func r7Copy(_ file: String) throws -> TemporaryDatabase {
    let path = try #require(Fixtures.path(file))
    try #require(FileManager.default.fileExists(atPath: path), "missing fixture \(file)")
    return try TemporaryDatabase(copying: path)
}

private func r7Quoted(_ identifier: String) -> String {
    "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
}

/// One cell as another tool reads it back: `typeof` and the SQL literal.
private struct Cell: Hashable, CustomStringConvertible {
    let type: String
    let literal: String
    var description: String { "\(type)/\(literal)" }
    /// The layout of the value: its storage class, and for text the literal with every hex digit as `h`
    /// (dates, UUIDs and numbers keep their separators, lengths and fraction digits).
    var shape: String {
        guard type == "text" else { return type }
        return type + ":" + String(literal.map { $0.isHexDigit ? "h" : $0 })
    }
}

/// The text of a value `quote()` or `typeof()` returned.
private func plain(_ value: SQLValue) -> String {
    if case .text(let text) = value { return text }
    return value.description
}

/// Every cell of every row, by row (the SQL literal of `rowKey`) and stored column (generated columns,
/// which follow the others, left out).
private func rawTable(_ db: Database, _ table: String, rowKey: String) throws -> [String: [String: Cell]] {
    let columns = try db.column(String.self, "SELECT name FROM pragma_table_xinfo(?) WHERE hidden NOT IN (2, 3)", table)
    let select = columns.map { "quote(\(r7Quoted($0))), typeof(\(r7Quoted($0)))" }.joined(separator: ", ")
    var result: [String: [String: Cell]] = [:]
    for row in try db.rows("SELECT \(rowKey), \(select) FROM \(r7Quoted(table))") {
        let key = plain(row.values[0])
        var cells: [String: Cell] = [:]
        for (i, column) in columns.enumerated() {
            cells[column] = Cell(type: plain(row.values[2 * i + 2]), literal: plain(row.values[2 * i + 1]))
        }
        #expect(result[key] == nil, "row key \(rowKey) is not unique in \(table)")
        result[key] = cells
    }
    return result
}

/// The cells that differ between two snapshots of the same rows, as "row.column".
private func changedCells(_ before: [String: [String: Cell]], _ after: [String: [String: Cell]]) -> [String] {
    var changed: [String] = []
    for (key, row) in after {
        guard let old = before[key] else { changed.append("\(key).+"); continue }
        for (column, cell) in row where old[column] != cell { changed.append("\(key).\(column)") }
    }
    for key in before.keys where after[key] == nil { changed.append("\(key).-") }
    return changed.sorted()
}

/// The columns an UPDATE sets (`UPDATE "t" SET "a" = ?, "b" = ? WHERE …` → ["a", "b"]).
private func setColumns(_ update: String) -> [String] {
    guard let set = update.range(of: " SET "), let whereClause = update.range(of: " WHERE ") else { return [] }
    return update[set.upperBound..<whereClause.lowerBound].components(separatedBy: ", ").map {
        $0.components(separatedBy: " = ").first?.trimmingCharacters(in: CharacterSet(charactersIn: "\"")) ?? $0
    }
}

/// Checks the write-integrity rules over one table: `objects` are all its rows, fetched through the model.
/// `change` changes one property of the first and returns its column; `make` builds a new object; the
/// columns of `formats` must be written in a layout (``Cell/shape``) the existing rows already use.
private func exercise<M: Model>(
    _ db: Database, _ type: M.Type, table: String, rowKey: String = "quote(rowid)", orderBy: String = "rowid",
    formats: [String] = [], deleting: (([M]) -> M?)? = nil, change: (M) -> String?, make: () -> M
) throws {
    let before = try rawTable(db, table, rowKey: rowKey)
    let objects = try db.objects(M.self, where: "ORDER BY \(orderBy)")
    #expect(objects.count == before.count, "\(table): every row fetches")
    try #require(!objects.isEmpty, "\(table) has rows to change")

    // An unchanged save runs nothing, not even a transaction.
    #expect(try statements(db) { for object in objects { try db.save(object) } } == [], "\(table): unchanged save")
    #expect(try rawTable(db, table, rowKey: rowKey) == before)

    // One property changed: one UPDATE of that column, one cell changed, in its neighbours' storage class
    // (nil: every column is part of the key, which a saved instance never changes).
    var afterUpdate = before
    if let column = change(objects[0]) {
        let writes = try statements(db) { try db.save(objects[0]) }.filter { !$0.hasPrefix("SELECT") }
        let updates = writes.filter { $0.hasPrefix("UPDATE") }
        #expect(updates.count == 1, "\(table): \(writes)")
        #expect(updates.first.map(setColumns) == [column], "\(table): \(writes)")
        #expect(writes.allSatisfy { $0.hasPrefix("UPDATE") || $0.hasPrefix("BEGIN") || $0.hasPrefix("COMMIT") || $0.hasPrefix("SAVEPOINT") || $0.hasPrefix("RELEASE") },
                "\(table): \(writes)")
        afterUpdate = try rawTable(db, table, rowKey: rowKey)
        let changed = changedCells(before, afterUpdate)
        #expect(changed.count == 1 && changed.first?.hasSuffix(".\(column)") == true, "\(table): \(changed)")
        if let key = changed.first.flatMap({ $0.split(separator: ".").first.map(String.init) }), let cell = afterUpdate[key]?[column] {
            let neighbours = Set(before.values.compactMap { $0[column] }.filter { $0.type != "null" }.map(\.type))
            #expect(neighbours.isEmpty || neighbours.contains(cell.type), "\(table).\(column): \(cell) among \(neighbours)")
            if formats.contains(column) {
                let shapes = Set(before.values.compactMap { $0[column] }.filter { $0.type != "null" }.map(\.shape))
                #expect(shapes.isEmpty || shapes.contains(cell.shape), "\(table).\(column): \(cell) among \(shapes)")
            }
        }
        // Saving it again writes nothing.
        #expect(try statements(db) { try db.save(objects[0]) } == [])
    }

    // An insert: one new row, each format column in a layout the column already has.
    let new = make()
    let inserts = try statements(db) { try db.save(new) }.filter { $0.hasPrefix("INSERT") || $0.hasPrefix("UPDATE") || $0.hasPrefix("REPLACE") }
    #expect(inserts.count == 1 && inserts.first?.hasPrefix("INSERT INTO") == true, "\(table): \(inserts)")
    #expect(inserts.allSatisfy { !$0.contains("ON CONFLICT") && !$0.contains("OR REPLACE") }, "\(table): no upsert: \(inserts)")
    let afterInsert = try rawTable(db, table, rowKey: rowKey)
    let added = Set(afterInsert.keys).subtracting(afterUpdate.keys)
    #expect(added.count == 1 && afterInsert.count == afterUpdate.count + 1, "\(table): \(added)")
    #expect(changedCells(afterUpdate, afterInsert).allSatisfy { $0.hasSuffix(".+") }, "\(table): an insert changes no other row")
    if let key = added.first, let row = afterInsert[key] {
        for column in formats {
            guard let cell = row[column], cell.type != "null" else { continue }
            let shapes = Set(afterUpdate.values.compactMap { $0[column] }.filter { $0.type != "null" }.map(\.shape))
            #expect(shapes.isEmpty || shapes.contains(cell.shape), "\(table).\(column): new \(cell) among \(shapes)")
        }
    }

    // A delete removes exactly that row.
    #expect(try db.delete(new))
    #expect(try rawTable(db, table, rowKey: rowKey) == afterUpdate, "\(table): the delete removed exactly the new row")
    // An existing row (`deleting` picks one no foreign key holds on to; nil: every row is referenced).
    guard let doomed = deleting.map({ $0(objects) }) ?? objects.last else { return }
    #expect(try db.delete(doomed))
    let afterDelete = try rawTable(db, table, rowKey: rowKey)
    #expect(afterDelete.count == afterUpdate.count - 1)
    #expect(changedCells(afterUpdate, afterDelete).count == 1, "\(table): \(changedCells(afterUpdate, afterDelete))")
}

/// Two handles on `path`, each inserting `count` new objects at once (`make(writer, i)`); the failures.
private func race<M: Model>(_ path: String, _ type: M.Type, count: Int = 200, make: @escaping @Sendable (Int, Int) -> M) -> [String] {
    let failures = Locked<[String]>([])
    DispatchQueue.concurrentPerform(iterations: 2) { writer in
        do {
            let db = try Database(path: path, configuration: .patient)
            for i in 0..<count { try db.save(make(writer, i)) }
            try db.close()
        } catch {
            failures.withLock { $0.append("\(error)") }
        }
    }
    return failures.withLock { $0 }
}

// MARK: peewee_notes.sqlite3 (and _v1): alias keys (one custom-named), a text key, a composite key

private final class R7PwAuthor: Model {
    static let tableName = "author"
    var id: Int64 = 0
    var name = ""
    var email: String?
    var active = false
    var joined = Date(timeIntervalSince1970: 0)
    var birthday: Date?
    var karma: Decimal = 0
    var ext_id = UUID()
    var last_seen: Date?
    var bio: String?
    var score = 0
    required init() {}
}

private final class R7PwNotebook: Model {
    static let tableName = "notebook"
    static let primaryKey = "notebook_id"
    var notebook_id: Int64 = 0
    var owner_id: Int64 = 0
    var title = ""   // NOT NULL in _v1, nullable after its migration
    required init() {}
}

private final class R7PwNote: Model {
    static let tableName = "note"
    var id: Int64 = 0
    var notebook_id: Int64?
    var content = ""
    var pinned = false
    var attachment: Data?
    var created = Date(timeIntervalSince1970: 0)
    var priority = 0
    var big: Int64 = 0
    var ratio = 0.0
    required init() {}
}

private final class R7PwLabel: Model {
    static let tableName = "label"
    static let primaryKey = "code"
    var code = ""
    var description: String?
    required init() {}
}

private final class R7PwNoteLabel: Model {
    static let tableName = "notelabel"
    static let compositeKey = ["note_id", "label_id"]
    var note_id: Int64 = 0
    var label_id = ""
    required init() {}
}

// MARK: sqlalchemy_blog.sqlite3: table-level alias keys, AUTOINCREMENT, STRICT, WITHOUT ROWID, composite

private final class R7SAUser: Model {
    static let tableName = "users"
    var id: Int64 = 0
    var username = ""
    var email = ""
    var is_admin = false
    var created_at = Date(timeIntervalSince1970: 0)
    var balance: Decimal = 0
    var avatar: Data?
    var prefs = SQLValue.null   // JSON: NUMERIC affinity, so taken as stored (Strata's remedy)
    var external_id = UUID()
    var status = "active"
    var bio: String?
    var karma = 0
    var views: Int64 = 0
    required init() {}
}

private final class R7SAPostTag: Model {
    static let tableName = "post_tags"
    static let compositeKey = ["post_id", "tag_id"]
    var post_id: Int64 = 0
    var tag_id: Int64 = 0
    required init() {}
}

// MARK: GYDataCenterTests.db: AUTOINCREMENT keys, REAL dates, one property of each Objective-C kind

private final class R7GYEmployee: Model {
    static let tableName = "Employee"
    static let primaryKey = "employeeId"
    var employeeId: Int64 = 0
    var dateOfBirth: Date?
    var department: Int64?
    var name: String?
    required init() {}
}

private final class R7GYDepartment: Model {
    static let tableName = "Department"
    static let primaryKey = "departmentId"
    var departmentId: Int64 = 0
    var BOOLProperty = false
    var arrayProperty: Data?
    var booleanProperty = false
    var charProperty: Int8 = 0
    var dataProperty: Data?
    var dateProperty: Date?
    var doubleProperty = 0.0
    var floatProperty: Float = 0
    var intProperty: Int32 = 0
    var longLongProperty: Int64 = 0
    var longProperty = 0
    var mutableStringProperty: String?
    var shortProperty: Int16 = 0
    var stringProperty: String?
    var unsignedLongLongProperty: UInt64 = 0
    var unsignedLongProperty: UInt = 0
    var unsignedProperty: UInt32 = 0
    required init() {}
}

// MARK: fcmodel_test.sqlite3 (empty: rows seeded as FCModel writes them): text keys, an untyped column

private final class R7FCSimple: Model {
    static let tableName = "SimpleModel"
    static let primaryKey = "uniqueID"
    var uniqueID = ""
    var name: String?
    var date: Date?
    var textDefaultUnspecified: String?
    var textDefaultNullLiteral: String?
    var textDefaultNullString: String?
    var nullableNumberDefaultUnspecified: Int?
    var nullableNumberDefaultNull: Int?
    var nullableNumberDefault1: Int?
    var lowercase: String?
    var mixedcase = 0
    var typelessTest: String?
    required init() {}
}

/// FCModel's rows: NSDate as REAL seconds since 1970, NSNumber, text keys of the app's choosing.
private let fcmodelRows = """
    INSERT INTO SimpleModel (uniqueID, name, date, mixedcase, lowercase, typelessTest) VALUES
        ('A1', 'one', 1400000000.5, 1, 'x', 'untyped'), ('B2', 'two', 1400000100.25, 2, NULL, 42), ('C3', NULL, NULL, 3, 'z', NULL);
    INSERT INTO SimplerModel (title) VALUES ('t1'), ('t2'), (NULL);
    INSERT INTO AdvancedModel VALUES ('a', 'https://example.org/a'), ('b', NULL);
    """

// MARK: smodel_test.sqlite3 (empty: rows seeded as sModel writes them): text keys, unique secondary keys

private final class R7SThing: Model {
    static let tableName = "Thing"
    static let primaryKey = "localId"
    var localId = UUID()
    var tid: String?
    var name: String?
    var place: String?
    var other: Int?
    var otherDouble: Double?
    required init() {}
}

private final class R7SAnimal: Model {
    static let tableName = "Animal"
    static let primaryKey = "aid"
    var aid = ""
    var name: String?
    var living = false
    var lastUpdated: Date?
    var ids: Data?
    var props: Data?
    required init() {}
}

private final class R7STree: Model {
    static let tableName = "Tree"
    static let primaryKey = "localId"
    var localId = UUID()
    var name: String?
    var status: Int?
    var serverId: String?
    required init() {}
}

private final class R7SSyncableThing: Model {
    static let tableName = "SyncableThing"
    static let primaryKey = "localId"
    var localId = UUID()
    var tid: String?
    var name: String?
    var place: String?
    var syncStatus: Int?
    var syncInFlightStatus: Int?
    required init() {}
}

private final class R7SPlace: Model {
    static let tableName = "Place"
    static let primaryKey = "localId"
    var localId = UUID()
    var placeId: String?
    var name: String?
    var isHot = false
    var isWet = false
    required init() {}
}

private final class R7SMessage: Model {
    static let tableName = "_Message"
    static let primaryKey = "localId"
    var localId = UUID()
    var messageId: String?
    var content: String?
    var createdOn: Date?
    var ownerPersonId: UUID?
    var syncStatus: Int?
    var syncInFlightStatus: Int?
    required init() {}
}

/// sModel's rows: keys from `UUID().uuidString` (uppercase with dashes), dates as REAL seconds since
/// 1970, Bool as 0/1.
private let smodelRows = """
    INSERT INTO Thing VALUES ('6B29FC40-CA47-1067-B31D-00DD010662DA', 't1', 'thing', 'here', 1, 1.5),
        ('7C9E6679-7425-40DE-944B-E07FC1F90AE7', 't2', NULL, NULL, NULL, NULL);
    INSERT INTO Animal VALUES ('cat', 'Tom', 1, 1500000000.5, X'5B5D', NULL), ('dog', NULL, 0, NULL, NULL, X'00');
    INSERT INTO Tree VALUES ('0F8FAD5B-D9CB-469F-A165-70867728950E', 'oak', 1, 's1'), ('1D9FAD5B-D9CB-469F-A165-70867728950E', 'elm', 0, NULL);
    INSERT INTO SyncableThing VALUES ('2E8FAD5B-D9CB-469F-A165-70867728950E', 'st1', 'n', 'p', 1, 0), ('3F8FAD5B-D9CB-469F-A165-70867728950E', 'st2', NULL, NULL, 0, 0);
    INSERT INTO Place VALUES ('4A8FAD5B-D9CB-469F-A165-70867728950E', 'p1', 'Paris', 0, 1), ('5B8FAD5B-D9CB-469F-A165-70867728950E', 'p2', 'Oslo', 0, 0);
    INSERT INTO _Person VALUES ('6C8FAD5B-D9CB-469F-A165-70867728950E', 'Ada', 'ada@x', 36, 1), ('7D8FAD5B-D9CB-469F-A165-70867728950E', 'Bob', NULL, NULL, 0);
    INSERT INTO _Message VALUES ('8E8FAD5B-D9CB-469F-A165-70867728950E', 'm1', 'hi', 1600000000.125, '6C8FAD5B-D9CB-469F-A165-70867728950E', 1, 0),
        ('9F8FAD5B-D9CB-469F-A165-70867728950E', 'm2', 'yo', 1600000001, NULL, 0, 0);
    """

// MARK: familysearch_app.sqlite3 (empty: rows seeded as the app writes them): nullable text keys,
// tables without a primary key, unique indices over several columns, odd declared types and defaults

private final class R7FSUser: Model {
    static let tableName = "FSUser"
    static let primaryKey = "localId"
    var localId = UUID()
    var cisId: String?
    var contactName: String?
    var email: String?
    var fullName: String?
    var isMember = true
    var pid: String?
    var userId: String?
    var username: String?
    var cacheHash: String?
    var lastFetchDate = Date(timeIntervalSince1970: 0)
    var helperPin: String?
    var hasHelperPermission = false
    var cardsNotReturned = false
    var gender: Int?
    required init() {}
}

private final class R7FSMyArtifacts: Model {
    static let tableName = "FSMyArtifacts"
    static let primaryKey = "localId"
    var localId = ""
    var listType = 0
    var cacheHash: String?
    var cisId: String?
    var lastFetchDate = Date(timeIntervalSince1970: 0)
    var archiveState = "notArchived"
    required init() {}
}

private final class R7FSSource: Model {
    static let tableName = "Source"
    static let primaryKey = "localId"
    var localId = UUID()
    var artifactLocalId: String?
    var serverId: String?
    var title: String?
    var url: String?
    var cacheHash: String?
    var lastFetchDate = Date(timeIntervalSince1970: 0)
    var syncInFlightStatus = 0
    var syncStatus = 0
    var notes: String?
    var citation: String?
    var contributorCisId: String?
    var modifiedTimestamp: Int64 = 0
    var resourceType: String?   // declared type `TEXT ''`
    var changeMessage: String?
    var displayDate: String?
    var sortYear: String?
    var sortKey: String?
    var unfinishedAttachments = false
    required init() {}
}

private final class R7FSTree: Model {
    static let tableName = "Tree"
    static let primaryKey = "localId"
    var localId = UUID()
    var _root1Pid = ""
    var _root2Pid = ""
    var ownerEntityId = ""
    var dataOptions: Int?
    var cacheHash: String?
    var lastFetchDate = Date(timeIntervalSince1970: 0)
    required init() {}
}

private final class R7FSScopeAncestor: Model {
    static let tableName = "ScopeAncestor"
    static let primaryKey = "localId"
    var localId = UUID()
    var scopeType = ""
    var pid = ""
    var cacheHash: String?
    var lastFetchDate = Date(timeIntervalSince1970: 0)
    required init() {}
}

private final class R7FSPlace: Model {
    static let tableName = "Place"
    var id = ""
    var latitude: Double?
    var longitude: Double?
    var name = ""
    var localizedType: String?
    required init() {}
}

private final class R7FSArtifactAssociation: Model {
    static let tableName = "Artifact_Associations"
    static let primaryKey = "rowid"
    var rowid: Int64 = 0
    var artifact1LocalId: String?
    var artifact2LocalId: String?
    var deleted: Bool? = false
    var sortOrder = 0
    required init() {}
}

private final class R7FSFanChartPosition: Model {
    static let tableName = "FanChartPosition"
    static let primaryKey = "rowid"
    var rowid: Int64 = 0
    var rootPid = ""
    var position = ""
    var generations = 0
    var pid: String?
    required init() {}
}

private let familysearchRows = """
    INSERT INTO FSUser (localId, cisId, email, isMember, pid, username, lastFetchDate, helperPin, hasHelperPermission, gender) VALUES
        ('A0000000-0000-4000-8000-000000000001', 'cis1', 'a@x', 1, 'KW1', 'ada', 1600000000.5, '', 0, 1),
        ('A0000000-0000-4000-8000-000000000002', NULL, NULL, 0, 'KW2', 'bob', 1600000100, '1234', 1, NULL);
    INSERT INTO FSMyArtifacts (localId, listType, lastFetchDate) VALUES ('photos', 1, 1600000000.25), ('docs', 2, 1600000001.5);
    INSERT INTO Source (localId, title, lastFetchDate, syncInFlightStatus, syncStatus, resourceType) VALUES
        ('B0000000-0000-4000-8000-000000000001', 'Census', 1600000000.5, 0, 1, 'record'),
        ('B0000000-0000-4000-8000-000000000002', NULL, 1600000002.5, 0, 0, NULL);
    INSERT INTO Tree VALUES ('C0000000-0000-4000-8000-000000000001', 'KW1', 'KW2', 'me', 3, NULL, 1600000000.5),
        ('C0000000-0000-4000-8000-000000000002', 'KW1', 'KW2', 'me', NULL, NULL, 1600000003.5);
    INSERT INTO ScopeAncestor VALUES ('D0000000-0000-4000-8000-000000000001', 'tree', 'KW1', NULL, 1600000000.5),
        ('D0000000-0000-4000-8000-000000000002', 'tree', 'KW2', 'h', 1600000004.5);
    INSERT INTO Place VALUES ('p1', 48.85, 2.35, 'Paris', 'city'), ('p2', NULL, NULL, 'Nowhere', NULL);
    INSERT INTO Artifact_Associations (artifact1LocalId, artifact2LocalId, deleted, sortOrder) VALUES ('a1', 'a2', 0, 1), ('a1', 'a3', 1, 2);
    INSERT INTO FanChartPosition VALUES ('KW1', '0', 4, 'KW1'), ('KW1', '1', 4, NULL);
    """

private final class R7FSContributor: Model {
    static let tableName = "FSContributor"
    static let primaryKey = "localId"
    var localId = ""
    var key: String?
    var contributorId: String?
    var contactName: String?
    var lastFetchDate = Date(timeIntervalSince1970: 0)
    var email = SQLValue.null         // `STRING`: NUMERIC affinity, so Strata's remedy, SQLValue
    var phoneNumber = SQLValue.null
    var cisUserId = SQLValue.null
    var relationshipPathData: Data?
    var optedInToUserRelationship = false
    var invitePending = false
    var hasContacted: Bool?
    var displayName: String?
    required init() {}
}

private final class R7RawValues: Model {
    static let tableName = "raw"
    var id: Int64 = 0
    var i = SQLValue.null
    var r = SQLValue.null
    var n = SQLValue.null
    required init() {}
}

// MARK: django/ (Django 5.2's DDL, run on an empty database)

private final class R7DjangoProduct: Model {
    static let tableName = "inventory_product"
    var id: Int64 = 0
    var sku = ""
    var title = ""
    var price: Decimal = 0
    var in_stock: Bool?
    var weight_kg = 0.0
    var quantity = 0
    var big_counter: Int64 = 0
    var released_on: Date?
    var created_at = Date(timeIntervalSince1970: 0)
    var uid = UUID()
    var attributes = "{}"
    var notes = ""
    var supplier_id: Int64 = 0
    required init() {}
}

// MARK: grdb_ProfilingDatabase.sqlite: 100,000 rows, no primary key (rowid table)

private final class R7GRDBItem: Model {
    static let tableName = "items"
    static let primaryKey = "rowid"
    var rowid: Int64 = 0
    var i0: Int?
    var i1: Int?
    var i2: Int?
    var i3: Int?
    var i4: Int?
    var i5: Int?
    var i6: Int?
    var i7: Int?
    var i8: Int?
    var i9: Int?
    required init() {}
}

@Suite(.enabled(if: Fixtures.available, "../shared/fixtures is not beside the checkout"))
struct Review7FixtureTests {
    @Test func peeweeTablesWriteOnlyWhatChangedInTheirFormats() throws {
        let temp = try r7Copy("peewee_notes.sqlite3")
        let db = temp.db
        let authors = try db.objects(R7PwAuthor.self, where: "ORDER BY id")
        #expect(authors.map(\.ext_id) == [UUID(uuidString: "aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee"), UUID(uuidString: "12345678-0000-0000-0000-000000000000")])
        #expect(authors.map(\.karma) == [Decimal(string: "10.5"), 3])
        #expect(authors.map(\.active) == [true, false])
        #expect(authors[0].last_seen == Date(timeIntervalSince1970: 1_589_716_800))
        try exercise(db, R7PwAuthor.self, table: "author", formats: ["joined", "birthday", "ext_id", "last_seen", "active", "karma"],
                     change: { $0.bio = "changed"; return "bio" },
                     make: {
                         let a = R7PwAuthor(); a.name = "Linus"; a.active = true; a.joined = Date(timeIntervalSince1970: 1_600_000_000.25)
                         a.birthday = Date(timeIntervalSince1970: 0); a.karma = Decimal(string: "2.5")!; a.last_seen = Date(timeIntervalSince1970: 1_700_000_000)
                         a.ext_id = UUID(uuidString: "0F8FAD5B-D9CB-469F-A165-70867728950E")!; a.score = 1
                         return a
                     })
        // Dates, UUID and Bool each changed on the remaining author: one column each, in its format.
        let grace = try #require(try db.object(R7PwAuthor.self, forKey: 1))
        for (column, mutate) in [("joined", { (a: R7PwAuthor) in a.joined = Date(timeIntervalSince1970: 1_000_000_000.5) }),
                                 ("birthday", { $0.birthday = Date(timeIntervalSince1970: 86_400 * 365) }),
                                 ("ext_id", { $0.ext_id = UUID(uuidString: "00000000-1111-2222-3333-444444444444")! }),
                                 ("last_seen", { $0.last_seen = Date(timeIntervalSince1970: 1_500_000_000) }),
                                 ("active", { $0.active.toggle() }),
                                 ("karma", { $0.karma = Decimal(string: "7.25")! })] {
            let before = try rawTable(db, "author", rowKey: "quote(id)")
            mutate(grace)
            let writes = try statements(db) { try db.save(grace) }.filter { $0.hasPrefix("UPDATE") }
            #expect(writes.map(setColumns) == [[column]])
            let after = try rawTable(db, "author", rowKey: "quote(id)")
            #expect(changedCells(before, after) == ["1.\(column)"])
            #expect(after["1"]?[column]?.shape == before["1"]?[column]?.shape, "\(column): \(String(describing: after["1"]?[column]))")
        }
        #expect(try db.value(String.self, "SELECT ext_id FROM author WHERE id = 1") == "00000000111122223333444444444444")
        #expect(try db.value(String.self, "SELECT birthday FROM author WHERE id = 1") == "1971-01-01")
        #expect(try db.value(String.self, "SELECT joined FROM author WHERE id = 1") == "2001-09-09 01:46:40.500000")

        try exercise(db, R7PwNotebook.self, table: "notebook", orderBy: "notebook_id",
                     change: { $0.title = "Renamed"; return "title" },
                     make: { let n = R7PwNotebook(); n.owner_id = 1; n.title = "New"; return n })
        try exercise(db, R7PwNote.self, table: "note", formats: ["created", "pinned"], deleting: { $0[1] },  // the others have labels
                     change: { $0.priority += 1; return "priority" },
                     make: {
                         let n = R7PwNote(); n.content = "new"; n.pinned = true; n.created = Date(timeIntervalSince1970: 1_234_567_890.125)
                         n.priority = 3; n.big = Int64.max; n.ratio = 0.25; return n
                     })
        try exercise(db, R7PwLabel.self, table: "label", formats: [], deleting: { _ in nil },  // notelabel holds both
                     change: { $0.description = "changed"; return "description" },
                     make: { let l = R7PwLabel(); l.code = "new"; l.description = "New"; return l })
        try exercise(db, R7PwNoteLabel.self, table: "notelabel", orderBy: "note_id",
                     change: { _ in nil },
                     make: { let l = R7PwNoteLabel(); l.note_id = 3; l.label_id = "hist"; return l })
    }

    @Test func peeweeKeyLayoutsTakeTwoHandlesInsertingAtOnce() throws {
        let temp = try r7Copy("peewee_notes.sqlite3")
        try temp.db.close()
        // Alias keys (author.id, the custom-named notebook.notebook_id), the text key label.code, then the
        // composite key of notelabel over those labels.
        #expect(race(temp.path, R7PwAuthor.self) { w, i in let a = R7PwAuthor(); a.name = "a\(w)-\(i)"; a.ext_id = UUID(); return a } == [])
        #expect(race(temp.path, R7PwNotebook.self) { w, i in let n = R7PwNotebook(); n.owner_id = 1; n.title = "n\(w)-\(i)"; return n } == [])
        #expect(race(temp.path, R7PwLabel.self) { w, i in let l = R7PwLabel(); l.code = "l\(w)-\(i)"; return l } == [])
        #expect(race(temp.path, R7PwNoteLabel.self) { w, i in let l = R7PwNoteLabel(); l.note_id = Int64(1 + w); l.label_id = "l\(w)-\(i)"; return l } == [])
        let db = try temp.reopen()
        #expect(try db.value(Int.self, "SELECT count(*) FROM author") == 402)
        #expect(try db.value(Int.self, "SELECT count(DISTINCT id) FROM author WHERE name LIKE 'a%-%'") == 400)
        #expect(try db.column(String.self, "SELECT name FROM author WHERE id <= 2 ORDER BY id") == ["Ada", "Grace"])
        #expect(try db.value(Int.self, "SELECT count(*) FROM notebook") == 402)
        #expect(try db.value(Int.self, "SELECT count(*) FROM notebook WHERE title LIKE 'n%-%'") == 400)
        #expect(try db.value(Int.self, "SELECT count(*) FROM label") == 402)
        #expect(try db.value(Int.self, "SELECT count(*) FROM notelabel") == 403)
        #expect(try db.value(Int.self, "SELECT count(*) FROM notelabel WHERE note_id = 2") == 200)
        // New rows are in the existing rows' formats: hex UUID text, 0/1, Python datetime text.
        #expect(try db.value(Int.self, "SELECT count(*) FROM author WHERE length(ext_id) = 32 AND ext_id NOT LIKE '%-%' AND typeof(active) = 'integer' AND joined LIKE '____-__-__ __:__:__%'") == 402)
    }

    @Test func peeweeUniqueViolationsNameModelColumnsAndKey() throws {
        let temp = try r7Copy("peewee_notes.sqlite3")
        let db = temp.db
        let before = try rawTable(db, "author", rowKey: "quote(id)")
        let twin = R7PwAuthor(); twin.name = "Grace"
        let error = try #require(throws: ModelError.self) { try db.save(twin) }
        #expect(error.kind == .duplicateKey && error.model == "R7PwAuthor" && error.properties == ["name"] && error.key == .integer(2))
        #expect(!twin.isPersisted)
        // On an update too: renaming Ada to Grace.
        let ada = try #require(try db.object(R7PwAuthor.self, forKey: 1))
        ada.name = "Grace"
        let renamed = try #require(throws: ModelError.self) { try db.save(ada) }
        #expect(renamed.kind == .duplicateKey && renamed.properties == ["name"] && renamed.key == .integer(2))
        #expect(try rawTable(db, "author", rowKey: "quote(id)") == before)

        let notebook = R7PwNotebook(); notebook.owner_id = 2; notebook.title = "Engines"
        let pair = try #require(throws: ModelError.self) { try db.save(notebook) }
        #expect(pair.kind == .duplicateKey && pair.model == "R7PwNotebook" && pair.properties == ["owner_id", "title"] && pair.key == .integer(2))
        let label = R7PwLabel(); label.code = "cs"
        let code = try #require(throws: ModelError.self) { try db.save(label) }
        #expect(code.kind == .duplicateKey && code.properties == ["code"] && code.key == .text("cs"))
        let link = R7PwNoteLabel(); link.note_id = 3; link.label_id = "cs"
        let composite = try #require(throws: ModelError.self) { try db.save(link) }
        #expect(composite.kind == .duplicateKey && composite.model == "R7PwNoteLabel" && composite.properties == ["note_id", "label_id"])
        #expect(composite.key == .text("(3, 'cs')"))
        #expect(try db.value(Int.self, "SELECT count(*) FROM notelabel") == 3)
    }

    @Test(arguments: ["sqlalchemy_blog.sqlite3", "sqlalchemy_blog_v1.sqlite3"])
    func sqlalchemyTablesWriteOnlyWhatChangedInTheirFormats(_ file: String) throws {
        let temp = try r7Copy(file)
        let db = temp.db
        if file.hasSuffix("_v1.sqlite3") {
            // Before its migration users lacks bio, karma and views, and username is shorter: the model
            // above would change the schema, so only the tables both versions share are checked here.
        } else {
            let users = try db.objects(R7SAUser.self, where: "ORDER BY id")
            #expect(users.map(\.balance) == [Decimal(string: "1234.5"), Decimal(string: "-0.01"), 5])
            #expect(users.map(\.external_id) == [UUID(uuidString: "11111111-2222-3333-4444-555555555555"), UUID(uuidString: "00000000-0000-0000-0000-000000000000"),
                                                   UUID(uuidString: "01234567-89ab-cdef-0123-456789abcdef")])
            #expect(users.map(\.prefs) == [.text(#"{"theme": "dark", "n": 3}"#), .text("null"), .null])
            try exercise(db, R7SAUser.self, table: "users", formats: ["created_at", "external_id", "is_admin"],
                         change: { $0.email = "alice@example.com"; return "email" },
                         make: {
                             let u = R7SAUser(); u.username = "dave"; u.email = "d@x"; u.created_at = Date(timeIntervalSince1970: 1_700_000_000.5)
                             u.balance = Decimal(string: "10.25")!; u.external_id = UUID(uuidString: "FFFFFFFF-0000-0000-0000-000000000001")!; u.is_admin = true
                             return u
                         })
            for (column, mutate) in [("created_at", { (u: R7SAUser) in u.created_at = Date(timeIntervalSince1970: 1_000_000_000.25) }),
                                     ("external_id", { $0.external_id = UUID(uuidString: "ABCDEF00-0000-0000-0000-000000000000")! }),
                                     ("is_admin", { $0.is_admin.toggle() }),
                                     ("balance", { $0.balance = Decimal(string: "0.5")! })] {
                let user = try #require(try db.object(R7SAUser.self, forKey: 1))
                let before = try rawTable(db, "users", rowKey: "quote(id)")
                mutate(user)
                let writes = try statements(db) { try db.save(user) }.filter { $0.hasPrefix("UPDATE") }
                #expect(writes.map(setColumns) == [[column]])
                let after = try rawTable(db, "users", rowKey: "quote(id)")
                #expect(changedCells(before, after) == ["1.\(column)"])
                let shapes = Set(before.values.compactMap { $0[column]?.shape })
                let written = after["1"]?[column]?.shape ?? "-"
                #expect(shapes.contains(written), "\(column): \(written) among \(shapes)")
            }
            #expect(try db.value(String.self, "SELECT external_id FROM users WHERE id = 1") == "abcdef00000000000000000000000000")
        }
        try exercise(db, FxSAPost.self, table: "posts", formats: ["published_on", "updated_at"],
                     change: { $0.body = "longer body"; return "body" },   // body_length follows: generated
                     make: {
                         let p = FxSAPost(); p.user_id = 2; p.title = "New"; p.body = "b"
                         p.published_on = Date(timeIntervalSince1970: 86_400 * 18_000); p.updated_at = Date(timeIntervalSince1970: 1_555_555_555.75)
                         return p
                     })
        try exercise(db, FxSAEvent.self, table: "events", formats: ["at"],
                     change: { $0.at = Date(timeIntervalSince1970: 1_600_000_000); return "at" },   // REAL in a STRICT table
                     make: { let e = FxSAEvent(); e.kind = "logout"; e.at = Date(timeIntervalSince1970: 2); e.payload = Data([1]); return e })
        try exercise(db, FxSASetting.self, table: "settings", rowKey: "quote(\"key\")", orderBy: "\"key\"",
                     change: { $0.value = "set"; return "value" },
                     make: { let s = FxSASetting(); s.key = "new"; s.value = "v"; return s })
        try exercise(db, FxSATag.self, table: "tags",
                     change: { $0.name = "sqlite3"; return "name" },
                     make: { let t = FxSATag(); t.name = "swift"; return t })
        try exercise(db, R7SAPostTag.self, table: "post_tags", orderBy: "post_id, tag_id",
                     change: { _ in nil },
                     make: { let l = R7SAPostTag(); l.post_id = 2; l.tag_id = 1; return l })
    }

    @Test func sqlalchemyKeyLayoutsTakeTwoHandlesInsertingAtOnce() throws {
        let temp = try r7Copy("sqlalchemy_blog.sqlite3")
        try temp.db.close()
        #expect(race(temp.path, R7SAUser.self) { w, i in let u = R7SAUser(); u.username = "u\(w)-\(i)"; u.email = "e"; return u } == [])
        #expect(race(temp.path, FxSAPost.self) { w, i in let p = FxSAPost(); p.user_id = 1; p.title = "p\(w)-\(i)"; return p } == [])
        #expect(race(temp.path, FxSAEvent.self) { w, i in let e = FxSAEvent(); e.kind = "k\(w)-\(i)"; return e } == [])
        #expect(race(temp.path, FxSASetting.self) { w, i in let s = FxSASetting(); s.key = "s\(w)-\(i)"; return s } == [])
        #expect(race(temp.path, FxSATag.self) { w, i in let t = FxSATag(); t.name = "t\(w)-\(i)"; return t } == [])
        #expect(race(temp.path, R7SAPostTag.self) { w, i in let l = R7SAPostTag(); l.post_id = Int64(2 + w); l.tag_id = Int64(3 + i); return l } == [])
        let db = try temp.reopen()
        #expect(try db.value(Int.self, "SELECT count(*) FROM users") == 403)
        #expect(try db.value(Int.self, "SELECT count(*) FROM posts") == 403)
        #expect(try db.value(Int.self, "SELECT seq FROM sqlite_sequence WHERE name = 'posts'") == 403)
        #expect(try db.value(Int.self, "SELECT count(*) FROM events") == 401)
        #expect(try db.value(Int.self, "SELECT count(*) FROM settings") == 402)
        #expect(try db.value(Int.self, "SELECT count(*) FROM tags") == 402)
        #expect(try db.value(Int.self, "SELECT count(*) FROM post_tags") == 403)
        #expect(try db.column(String.self, "SELECT username FROM users WHERE id <= 3 ORDER BY id") == ["alice", "Bob", "carol"])
        #expect(try db.value(Int.self, "SELECT count(*) FROM users WHERE length(external_id) = 32 AND created_at LIKE '____-__-__ __:__:__%'") == 403)
    }

    @Test func sqlalchemyUniqueViolationsNameModelColumnsAndKey() throws {
        let temp = try r7Copy("sqlalchemy_blog.sqlite3")
        let db = temp.db
        let user = R7SAUser(); user.username = "carol"; user.email = "c"
        let username = try #require(throws: ModelError.self) { try db.save(user) }
        #expect(username.kind == .duplicateKey && username.model == "R7SAUser" && username.properties == ["username"] && username.key == .integer(3))
        let post = FxSAPost(); post.user_id = 2; post.title = "Hello"
        let pair = try #require(throws: ModelError.self) { try db.save(post) }
        #expect(pair.kind == .duplicateKey && pair.model == "FxSAPost" && pair.properties == ["user_id", "title"] && pair.key == .integer(3))
        let tag = try #require(try db.object(FxSATag.self, forKey: 1))
        tag.name = "orm"
        let renamed = try #require(throws: ModelError.self) { try db.save(tag) }
        #expect(renamed.kind == .duplicateKey && renamed.properties == ["name"] && renamed.key == .integer(2))
        let setting = FxSASetting(); setting.key = "empty"
        let key = try #require(throws: ModelError.self) { try db.save(setting) }
        #expect(key.kind == .duplicateKey && key.model == "FxSASetting" && key.properties == ["key"] && key.key == .text("empty"))
        #expect(try db.value(Int.self, "SELECT seq FROM sqlite_sequence WHERE name = 'posts'") == 3)
        #expect(try db.column(String.self, "SELECT name FROM tags ORDER BY id") == ["sqlite", "orm"])
    }

    @Test func gyDataCenterTablesWriteOnlyWhatChangedInTheirFormats() throws {
        let temp = try r7Copy("GYDataCenterTests.db")
        let db = temp.db
        try exercise(db, R7GYEmployee.self, table: "Employee", formats: ["dateOfBirth"],
                     change: { $0.dateOfBirth = Date(timeIntervalSince1970: 315_532_800.5); return "dateOfBirth" },
                     make: { let e = R7GYEmployee(); e.name = "Emp4"; e.department = 1; e.dateOfBirth = Date(timeIntervalSince1970: 1); return e })
        #expect(try db.value(String.self, "SELECT typeof(dateOfBirth) FROM Employee WHERE employeeId = 1") == "real")
        let department = try #require(try db.object(R7GYDepartment.self, forKey: 1))
        #expect(department.floatProperty == Float(1.1) && department.charProperty == 97 && department.unsignedLongLongProperty == 7_777_777)
        try exercise(db, R7GYDepartment.self, table: "Department", formats: ["BOOLProperty", "booleanProperty", "floatProperty"],
                     deleting: { _ in nil },   // the employees' department
                     change: { $0.shortProperty = 12; return "shortProperty" },
                     make: {
                         let d = R7GYDepartment(); d.BOOLProperty = true; d.floatProperty = 2.5; d.dateProperty = Date(timeIntervalSince1970: 3.5)
                         d.stringProperty = "s"; d.unsignedLongLongProperty = UInt64(Int64.max); return d
                     })
        // The float, untouched by the saves, keeps GYDataCenter's widened value.
        #expect(try db.value(String.self, "SELECT quote(floatProperty) FROM Department WHERE departmentId = 1") == "1.10000002384185791015e+00")
        #expect(try db.value(Int.self, "SELECT seq FROM sqlite_sequence WHERE name = 'Employee'") == 4)   // 4 inserted, then deleted
        #expect(race(temp.path, R7GYEmployee.self) { w, i in let e = R7GYEmployee(); e.name = "e\(w)-\(i)"; return e } == [])
        #expect(try db.value(Int.self, "SELECT count(*) FROM Employee") == 402)
        #expect(try db.value(Int.self, "SELECT count(DISTINCT employeeId) FROM Employee WHERE employeeId > 4") == 400)
    }

    @Test func fcmodelTablesWriteOnlyWhatChangedInTheirFormats() throws {
        let temp = try r7Copy("fcmodel_test.sqlite3")
        let db = temp.db
        try db.execute(fcmodelRows)
        try exercise(db, R7FCSimple.self, table: "SimpleModel", rowKey: "quote(uniqueID)", orderBy: "uniqueID", formats: ["date"],
                     change: { $0.date = Date(timeIntervalSince1970: 1_500_000_000.75); return "date" },
                     make: { let m = R7FCSimple(); m.uniqueID = "D4"; m.date = Date(timeIntervalSince1970: 1_400_000_200.5); m.mixedcase = 4; return m })
        // Seconds since 1970, as FCModel's rows have them, although DATETIME is empty-column text elsewhere.
        #expect(try db.column(String.self, "SELECT typeof(date) FROM SimpleModel WHERE date IS NOT NULL ORDER BY uniqueID") == ["real", "real"])
        let b2 = try #require(try db.object(R7FCSimple.self, forKey: "B2"))
        #expect(b2.typelessTest == "42")   // an integer in the untyped column reads as its text
        b2.name = "deux"
        try db.save(b2)
        #expect(try db.value(String.self, "SELECT quote(typelessTest) FROM SimpleModel WHERE uniqueID = 'B2'") == "42")
        try exercise(db, FxFCSimpler.self, table: "SimplerModel", change: { $0.title = "T"; return "title" },
                     make: { let m = FxFCSimpler(); m.title = "new"; return m })
        try exercise(db, FxFCAdvanced.self, table: "AdvancedModel", rowKey: "quote(uniqueID)", orderBy: "uniqueID",
                     change: { $0.url = URL(string: "https://example.org/changed"); return "url" },
                     make: { let m = FxFCAdvanced(); m.uniqueID = "c"; m.url = URL(string: "https://example.org/c"); return m })
        #expect(race(temp.path, R7FCSimple.self) { w, i in let m = R7FCSimple(); m.uniqueID = "r\(w)-\(i)"; m.mixedcase = i; return m } == [])
        #expect(race(temp.path, FxFCSimpler.self) { w, i in let m = FxFCSimpler(); m.title = "r\(w)-\(i)"; return m } == [])
        #expect(try db.value(Int.self, "SELECT count(*) FROM SimpleModel WHERE uniqueID LIKE 'r%'") == 400)
        #expect(try db.value(Int.self, "SELECT count(DISTINCT id) FROM SimplerModel WHERE title LIKE 'r%'") == 400)
    }

    @Test func smodelTablesWriteOnlyWhatChangedInTheirFormats() throws {
        let temp = try r7Copy("smodel_test.sqlite3")
        let db = temp.db
        try db.execute(smodelRows)
        let upperDashed = ["text:hhhhhhhh-hhhh-hhhh-hhhh-hhhhhhhhhhhh"]
        try exercise(db, R7SThing.self, table: "Thing", rowKey: "quote(localId)", orderBy: "localId", formats: ["localId"],
                     change: { $0.place = "there"; return "place" },
                     make: { let t = R7SThing(); t.tid = "t3"; t.otherDouble = 0.5; return t })
        try exercise(db, R7SAnimal.self, table: "Animal", rowKey: "quote(aid)", orderBy: "aid", formats: ["living", "lastUpdated"],
                     change: { $0.lastUpdated = Date(timeIntervalSince1970: 1_500_000_100.5); return "lastUpdated" },
                     make: { let a = R7SAnimal(); a.aid = "cow"; a.living = true; a.lastUpdated = Date(timeIntervalSince1970: 7.5); return a })
        try exercise(db, R7STree.self, table: "Tree", rowKey: "quote(localId)", orderBy: "localId", formats: ["localId"],
                     change: { $0.status = 5; return "status" },
                     make: { let t = R7STree(); t.name = "ash"; t.serverId = "s3"; return t })
        try exercise(db, R7SSyncableThing.self, table: "SyncableThing", rowKey: "quote(localId)", orderBy: "localId", formats: ["localId"],
                     change: { $0.syncStatus = 2; return "syncStatus" },
                     make: { let t = R7SSyncableThing(); t.tid = "st3"; t.syncStatus = 1; return t })
        try exercise(db, R7SPlace.self, table: "Place", rowKey: "quote(localId)", orderBy: "localId", formats: ["localId", "isHot", "isWet"],
                     change: { $0.isHot = true; return "isHot" },
                     make: { let p = R7SPlace(); p.placeId = "p3"; p.isWet = true; return p })
        try exercise(db, FxSPerson.self, table: "_Person", rowKey: "quote(id)", orderBy: "id", formats: ["id", "active"],
                     change: { $0.age = 37; return "age" },
                     make: { let p = FxSPerson(); p.name = "Cy"; p.active = true; return p })
        try exercise(db, R7SMessage.self, table: "_Message", rowKey: "quote(localId)", orderBy: "localId", formats: ["localId", "createdOn", "ownerPersonId"],
                     change: { $0.ownerPersonId = UUID(uuidString: "7D8FAD5B-D9CB-469F-A165-70867728950E"); return "ownerPersonId" },
                     make: { let m = R7SMessage(); m.messageId = "m3"; m.createdOn = Date(timeIntervalSince1970: 9.5)
                             m.ownerPersonId = UUID(uuidString: "6C8FAD5B-D9CB-469F-A165-70867728950E"); return m })
        // Every key, old and new, is uppercase with dashes, and a key looks up its row.
        for table in ["Thing", "Tree", "SyncableThing", "Place", "_Message"] {
            let shapes = try db.column(String.self, "SELECT localId FROM \(r7Quoted(table))").map { Cell(type: "text", literal: $0).shape }
            #expect(Set(shapes).map { "text:" + $0.dropFirst(5) } == upperDashed, "\(table)")
            #expect(try db.value(Int.self, "SELECT count(*) FROM \(r7Quoted(table)) WHERE localId <> upper(localId)") == 0, "\(table)")
        }
        #expect(try db.value(Int.self, "SELECT count(*) FROM _Person WHERE id <> upper(id) OR length(id) <> 36") == 0)
        #expect(try db.object(FxSPerson.self, forKey: UUID(uuidString: "6c8fad5b-d9cb-469f-a165-70867728950e")!)?.name == "Ada")
        #expect(try db.value(Int.self, "SELECT count(*) FROM _Message WHERE ownerPersonId <> upper(ownerPersonId)") == 0)

        // Two handles inserting: UUID keys chosen by the instances, none lost.
        #expect(race(temp.path, FxSPerson.self) { w, i in let p = FxSPerson(); p.name = "p\(w)-\(i)"; return p } == [])
        #expect(race(temp.path, R7SThing.self) { w, i in let t = R7SThing(); t.tid = "t\(w)-\(i)"; return t } == [])
        #expect(try db.value(Int.self, "SELECT count(*) FROM _Person WHERE name LIKE 'p%-%'") == 400)
        #expect(try db.value(Int.self, "SELECT count(*) FROM Thing WHERE tid LIKE 't%-%' AND localId = upper(localId)") == 400)

        // sModel's secondary keys are UNIQUE indices: a duplicate names them and the row it would duplicate.
        let twin = R7SThing(); twin.tid = "t1"
        let error = try #require(throws: ModelError.self) { try db.save(twin) }
        #expect(error.kind == .duplicateKey && error.model == "R7SThing" && error.properties == ["tid"])
        // Keys are reported in Strata's native encoding, as everywhere (the row stores it uppercase).
        #expect(error.key == .text("6b29fc40-ca47-1067-b31d-00dd010662da"))
        let place = R7SPlace(); place.placeId = "p4"
        try db.save(place)
        place.placeId = "p1"
        let moved = try #require(throws: ModelError.self) { try db.save(place) }
        #expect(moved.kind == .duplicateKey && moved.model == "R7SPlace" && moved.properties == ["placeId"])
        #expect(moved.key == .text("4a8fad5b-d9cb-469f-a165-70867728950e"))
        #expect(try db.value(String.self, "SELECT placeId FROM Place WHERE localId = ?", place.localId.uuidString) == "p4")
    }

    @Test func familySearchTablesWriteOnlyWhatChangedInTheirFormats() throws {
        let temp = try r7Copy("familysearch_app.sqlite3")
        let db = temp.db
        try db.execute(familysearchRows)
        let schema = try db.column(String.self, "SELECT ifnull(sql, '') FROM sqlite_master ORDER BY name")
        try exercise(db, R7FSUser.self, table: "FSUser", rowKey: "quote(localId)", orderBy: "localId", formats: ["localId", "lastFetchDate", "isMember", "hasHelperPermission"],
                     change: { $0.lastFetchDate = Date(timeIntervalSince1970: 1_700_000_000.5); return "lastFetchDate" },
                     make: { let u = R7FSUser(); u.username = "cy"; u.lastFetchDate = Date(timeIntervalSince1970: 1_600_000_200.5); u.hasHelperPermission = true; return u })
        try exercise(db, R7FSMyArtifacts.self, table: "FSMyArtifacts", rowKey: "quote(localId)", orderBy: "localId", formats: ["lastFetchDate"],
                     change: { $0.archiveState = "archived"; return "archiveState" },
                     make: { let a = R7FSMyArtifacts(); a.localId = "audio"; a.listType = 3; return a })
        #expect(try db.column(String.self, "SELECT archiveState FROM FSMyArtifacts ORDER BY localId") == ["archived"])   // photos deleted
        try exercise(db, R7FSSource.self, table: "Source", rowKey: "quote(localId)", orderBy: "localId", formats: ["localId", "lastFetchDate"],
                     change: { $0.resourceType = "image"; return "resourceType" },
                     make: { let s = R7FSSource(); s.title = "new"; s.resourceType = "0123"; return s })
        try exercise(db, R7FSTree.self, table: "Tree", rowKey: "quote(localId)", orderBy: "localId", formats: ["localId", "lastFetchDate"],
                     change: { $0.cacheHash = "h"; return "cacheHash" },
                     make: { let t = R7FSTree(); t._root1Pid = "KW3"; t._root2Pid = "KW4"; t.ownerEntityId = "me"; t.dataOptions = 1; return t })
        try exercise(db, R7FSScopeAncestor.self, table: "ScopeAncestor", rowKey: "quote(localId)", orderBy: "localId", formats: ["localId", "lastFetchDate"],
                     change: { $0.pid = "KW9"; return "pid" },
                     make: { let a = R7FSScopeAncestor(); a.scopeType = "fan"; a.pid = "KW1"; return a })
        try exercise(db, R7FSPlace.self, table: "Place", rowKey: "quote(id)", orderBy: "id",
                     change: { $0.latitude = 48.8566; return "latitude" },
                     make: { let p = R7FSPlace(); p.id = "p3"; p.name = "Oslo"; p.latitude = 59.9; return p })
        try exercise(db, R7FSArtifactAssociation.self, table: "Artifact_Associations", formats: ["deleted"],
                     change: { $0.deleted = true; return "deleted" },
                     make: { let a = R7FSArtifactAssociation(); a.artifact1LocalId = "a2"; a.artifact2LocalId = "a3"; a.sortOrder = 3; return a })
        try exercise(db, R7FSFanChartPosition.self, table: "FanChartPosition",
                     change: { $0.generations = 5; return "generations" },
                     make: { let f = R7FSFanChartPosition(); f.rootPid = "KW1"; f.position = "2"; f.generations = 4; return f })
        #expect(try db.value(String.self, "SELECT quote(resourceType) FROM Source WHERE title = 'Census'") == "'image'")
        // Nothing in the schema changed: no table or index of the app's was rebuilt, added or dropped.
        #expect(try db.column(String.self, "SELECT ifnull(sql, '') FROM sqlite_master ORDER BY name") == schema)

        // Two handles inserting into a nullable text key and into a table keyed only by its rowid.
        #expect(race(temp.path, R7FSUser.self) { w, i in let u = R7FSUser(); u.username = "u\(w)-\(i)"; return u } == [])
        #expect(race(temp.path, R7FSArtifactAssociation.self) { w, i in
            let a = R7FSArtifactAssociation(); a.artifact1LocalId = "w\(w)"; a.artifact2LocalId = "\(i)"; return a } == [])
        #expect(try db.value(Int.self, "SELECT count(*) FROM FSUser WHERE username LIKE 'u%-%' AND localId = upper(localId) AND typeof(lastFetchDate) = 'real'") == 400)
        #expect(try db.value(Int.self, "SELECT count(DISTINCT rowid) FROM Artifact_Associations WHERE artifact1LocalId LIKE 'w%'") == 400)

        // The app's unique indices: a duplicate names model, columns and the key of the row it duplicates.
        let tree = R7FSTree(); tree._root1Pid = "KW1"; tree._root2Pid = "KW2"; tree.ownerEntityId = "x"; tree.dataOptions = 3
        let triple = try #require(throws: ModelError.self) { try db.save(tree) }
        #expect(triple.kind == .duplicateKey && triple.model == "R7FSTree" && triple.properties == ["_root1Pid", "_root2Pid", "dataOptions"])
        #expect(triple.key == .text("c0000000-0000-4000-8000-000000000001"))
        let ancestor = R7FSScopeAncestor(); ancestor.scopeType = "tree"; ancestor.pid = "KW9"
        let pair = try #require(throws: ModelError.self) { try db.save(ancestor) }
        #expect(pair.kind == .duplicateKey && pair.properties == ["scopeType", "pid"] && pair.key == .text("d0000000-0000-4000-8000-000000000001"))
        let association = R7FSArtifactAssociation(); association.artifact1LocalId = "a1"; association.artifact2LocalId = "a2"
        let rowidKeyed = try #require(throws: ModelError.self) { try db.save(association) }
        #expect(rowidKeyed.kind == .duplicateKey && rowidKeyed.model == "R7FSArtifactAssociation")
        #expect(rowidKeyed.properties == ["artifact1LocalId", "artifact2LocalId"] && rowidKeyed.key == .integer(1))
    }

    /// FamilySearch declares phone numbers and ids `STRING`: NUMERIC affinity, which turns the text '0123'
    /// into the integer 123. Strata refuses a String there and names SQLValue as the remedy; a SQLValue
    /// saved as text the column converts is remembered as the column stores it, so another connection's
    /// commit of another column is no conflict, and the next change writes that one column.
    @Test func aRawValueTheColumnConvertsIsNoConflictAfterAnotherConnectionsCommit() throws {
        let temp = try r7Copy("familysearch_app.sqlite3")
        let db = temp.db
        try db.execute("INSERT INTO FSContributor (localId, lastFetchDate, email, phoneNumber, cisUserId) VALUES ('c1', 1600000000.5, 'a@x', '+1 555', 'cis')")
        let contributor = try #require(try db.object(R7FSContributor.self, forKey: "c1"))
        #expect(contributor.phoneNumber == .text("+1 555"))
        contributor.phoneNumber = .text("0123")
        try db.save(contributor)
        #expect(try db.value(String.self, "SELECT quote(phoneNumber) FROM FSContributor") == "123")   // SQLite's affinity
        #expect(try statements(db) { try db.save(contributor) } == [])

        let other = try Database(path: temp.path)
        try other.execute("UPDATE FSContributor SET displayName = 'other'")
        try other.close()
        contributor.phoneNumber = .text("+44 20")
        let writes = try statements(db) { try db.save(contributor) }.filter { $0.hasPrefix("UPDATE") }
        #expect(writes.map(setColumns) == [["phoneNumber"]])
        #expect(contributor.displayName == "other")
        #expect(try db.rows("SELECT phoneNumber, displayName FROM FSContributor").map(\.values) == [[.text("+44 20"), .text("other")]])

        // The same for a number saved as a REAL into an INTEGER-affinity column, and an integer into REAL.
        try db.execute("CREATE TABLE raw (id INTEGER PRIMARY KEY, i INTEGER, r REAL, n NUMERIC)")
        let raw = R7RawValues(); raw.i = .real(2.0); raw.r = .integer(3); raw.n = .text(" 42 ")
        try db.save(raw)
        #expect(try db.value(String.self, "SELECT quote(i) || quote(r) || quote(n) FROM raw") == "23.042")
        let another = try Database(path: temp.path)
        try another.execute("UPDATE raw SET id = id")
        try another.close()
        raw.i = .integer(7); raw.r = .real(8.5); raw.n = .text("x")
        try db.save(raw)
        #expect(try db.value(String.self, "SELECT quote(i) || quote(r) || quote(n) FROM raw") == "78.5'x'")
    }

    @Test func grdbRowIDTableWritesOnlyWhatChanged() throws {
        let temp = try r7Copy("grdb_ProfilingDatabase.sqlite")
        let original = try r7Copy("grdb_ProfilingDatabase.sqlite")
        try original.db.close()
        let db = temp.db
        try db.execute("ATTACH DATABASE ? AS original", original.path)
        /// Each cell of `items` that differs from the original's ("rowid.column"), rows added ("rowid.+") and
        /// rows removed ("rowid.-").
        func differing() throws -> [String] {
            var found: [String] = []
            for i in 0..<10 {
                found += try db.column(Int64.self, """
                    SELECT m.rowid FROM main.items m JOIN original.items o ON o.rowid = m.rowid
                    WHERE m.i\(i) IS NOT o.i\(i) OR typeof(m.i\(i)) <> typeof(o.i\(i))
                    """).map { "\($0).i\(i)" }
            }
            found += try db.column(Int64.self, "SELECT rowid FROM main.items WHERE rowid NOT IN (SELECT rowid FROM original.items)").map { "\($0).+" }
            found += try db.column(Int64.self, "SELECT rowid FROM original.items WHERE rowid NOT IN (SELECT rowid FROM main.items)").map { "\($0).-" }
            return found.sorted()
        }
        let items = try db.objects(R7GRDBItem.self, where: "ORDER BY rowid")
        #expect(items.count == 100_000)
        #expect(try statements(db) { for item in items.prefix(1000) { try db.save(item) } } == [])
        let item = items[41_999]
        item.i3 = (item.i3 ?? 0) + 1
        let writes = try statements(db) { try db.save(item) }.filter { $0.hasPrefix("UPDATE") }
        #expect(writes.map(setColumns) == [["i3"]])
        #expect(try differing() == ["42000.i3"])
        #expect(try db.value(String.self, "SELECT typeof(i3) FROM items WHERE rowid = 42000") == "integer")
        let new = R7GRDBItem(); new.i0 = 1; new.i9 = 9
        try db.save(new)
        #expect(new.rowid == 100_001)
        #expect(try db.value(String.self, "SELECT quote(i0) || quote(i1) || quote(i9) FROM items WHERE rowid = 100001") == "1NULL9")
        #expect(try db.delete(items[5]))
        #expect(try differing() == ["100001.+", "42000.i3", "6.-"])
        try db.execute("DETACH DATABASE original")
        #expect(race(temp.path, R7GRDBItem.self) { w, i in let n = R7GRDBItem(); n.i0 = w; n.i1 = i; return n } == [])
        #expect(try db.value(Int.self, "SELECT count(*) FROM items") == 100_400)
        #expect(try db.value(Int.self, "SELECT count(DISTINCT i0 || '-' || i1) FROM items WHERE rowid > 100001") == 400)
    }

    /// Django's `UniqueConstraint(fields=["sku"], condition=Q(in_stock=True))` is a partial unique index:
    /// rows out of stock may share a sku. A duplicate names the row it would duplicate, the one the index
    /// covers, not the first row with that sku.
    @Test func aDuplicateInAPartialUniqueIndexNamesTheRowTheIndexCovers() throws {
        let ddl = try String(contentsOfFile: try #require(Fixtures.path("django/django_sqlmigrate_inventory_0001.sql")), encoding: .utf8)
        let temp = try TemporaryDatabase()
        let db = temp.db
        try db.execute(ddl)
        try db.execute("INSERT INTO inventory_supplier (id, name, email, active) VALUES (1, 's1', 'e', 1), (2, 's2', 'e', 1), (3, 's3', 'e', 1)")
        for (supplier, inStock) in [(1, false), (2, true)] {
            let product = R7DjangoProduct(); product.sku = "A"; product.title = "t"; product.supplier_id = Int64(supplier); product.in_stock = inStock
            try db.save(product)
        }
        let twin = R7DjangoProduct(); twin.sku = "A"; twin.title = "t"; twin.supplier_id = 3; twin.in_stock = true
        let error = try #require(throws: ModelError.self) { try db.save(twin) }
        #expect(error.kind == .duplicateKey && error.model == "R7DjangoProduct" && error.properties == ["sku"])
        #expect(error.key == .integer(2))
        // The uid column (UNIQUE, 32 hex digits): the row is found in the column's format.
        let uid = try #require(try db.object(R7DjangoProduct.self, forKey: 1)).uid
        let copy = R7DjangoProduct(); copy.sku = "B"; copy.title = "t"; copy.supplier_id = 3; copy.uid = uid
        let byUID = try #require(throws: ModelError.self) { try db.save(copy) }
        #expect(byUID.kind == .duplicateKey && byUID.properties == ["uid"] && byUID.key == .integer(1))
        // (supplier_id, sku) is unique too.
        let pair = R7DjangoProduct(); pair.sku = "A"; pair.title = "t"; pair.supplier_id = 1; pair.in_stock = false
        let byPair = try #require(throws: ModelError.self) { try db.save(pair) }
        #expect(byPair.kind == .duplicateKey && byPair.properties == ["supplier_id", "sku"] && byPair.key == .integer(1))
        #expect(try db.value(Int.self, "SELECT count(*) FROM inventory_product") == 2)
    }

    /// FCModel writes dates as REAL seconds since 1970, and its `DATETIME` column (NUMERIC affinity) stores
    /// a whole second as an INTEGER: a column whose first row holds one is still a column of REAL seconds,
    /// and a date saved there keeps its fraction.
    @Test func realSecondsBehindAWholeSecondFirstRowKeepTheirFraction() throws {
        let temp = try r7Copy("fcmodel_test.sqlite3")
        let db = temp.db
        try db.execute("""
            INSERT INTO SimpleModel (uniqueID, date, mixedcase) VALUES ('A', 1400000000.0, 1), ('B', 1400000100.25, 2), ('C', 1400000200.5, 3)
            """)
        #expect(try db.column(String.self, "SELECT quote(date) FROM SimpleModel ORDER BY uniqueID") == ["1400000000", "1400000100.25", "1400000200.5"])
        let new = R7FCSimple(); new.uniqueID = "D"; new.date = Date(timeIntervalSince1970: 1_500_000_000.5); new.mixedcase = 4
        try db.save(new)
        let a = try #require(try db.object(R7FCSimple.self, forKey: "A"))
        a.date = Date(timeIntervalSince1970: 1_400_000_000.75)
        try db.save(a)
        #expect(try db.column(String.self, "SELECT quote(date) FROM SimpleModel ORDER BY uniqueID") == ["1400000000.75", "1400000100.25", "1400000200.5", "1500000000.5"])
        let fresh = try temp.reopen()
        #expect(try fresh.object(R7FCSimple.self, forKey: "D")?.date == Date(timeIntervalSince1970: 1_500_000_000.5))
    }

    /// sModel's keys come from `UUID().uuidString`: uppercase. A first row whose UUID has no letter
    /// (`12345678-0000-…`, peewee's fixture has one) does not show the case: the column's case is what the
    /// sampled rows with letters show, so the other rows are found by key and new keys match them.
    @Test func aUUIDColumnsCaseIsNotDecidedByAFirstRowWithoutLetters() throws {
        let temp = try r7Copy("smodel_test.sqlite3")
        let db = temp.db
        try db.execute("""
            INSERT INTO _Person VALUES ('12345678-0000-0000-0000-000000000000', 'Zero', NULL, NULL, 0),
                ('6C8FAD5B-D9CB-469F-A165-70867728950E', 'Ada', NULL, 36, 1)
            """)
        let ada = try #require(try db.object(FxSPerson.self, forKey: UUID(uuidString: "6c8fad5b-d9cb-469f-a165-70867728950e")!))
        #expect(ada.name == "Ada")
        ada.age = 37
        try db.save(ada)
        let new = FxSPerson(); new.name = "New"
        try db.save(new)
        #expect(try db.column(String.self, "SELECT id FROM _Person WHERE id <> upper(id)") == [])
        #expect(try db.value(Int.self, "SELECT age FROM _Person WHERE name = 'Ada'") == 37)
    }

    /// peewee's foreign keys act on other rows: ON DELETE SET NULL (note.notebook_id) and CASCADE
    /// (notebook.owner_id). Live instances of those rows follow, and a later save of another property
    /// writes that property only, never the old reference back.
    @Test func peeweeForeignKeyActionsReachLiveInstancesAndNoSaveUndoesThem() throws {
        let temp = try r7Copy("peewee_notes.sqlite3")
        let db = temp.db
        let note = try #require(try db.object(R7PwNote.self, forKey: 3))
        let notebook = try #require(try db.object(R7PwNotebook.self, forKey: 2))
        #expect(note.notebook_id == 2 && notebook.owner_id == 2)
        try db.execute("DELETE FROM notelabel WHERE note_id = 3")
        let grace = try #require(try db.object(R7PwAuthor.self, forKey: 2))
        #expect(try db.delete(grace))   // CASCADE: notebook 2; then SET NULL: note 3's notebook_id
        #expect(notebook.isDeleted)
        #expect(note.notebook_id == nil)
        note.content = "COBOL, orphaned"
        let writes = try statements(db) { try db.save(note) }.filter { $0.hasPrefix("UPDATE") }
        #expect(writes.map(setColumns) == [["content"]])
        #expect(try db.rows("SELECT quote(notebook_id), content FROM note WHERE id = 3").map(\.values) == [[.text("NULL"), .text("COBOL, orphaned")]])
        #expect(throws: ModelError.self) { try db.save(notebook) }
        #expect(try db.value(Int.self, "SELECT count(*) FROM notebook WHERE notebook_id = 2") == 0)
    }

    /// Two handles inserting the same 200 unique names into peewee's author at once: each name is saved
    /// once, and every loser gets a duplicateKey naming `name` and the winner's key.
    @Test func twoHandlesRacingForOneUniqueNameLeaveOneRowAndNameTheWinner() throws {
        let temp = try r7Copy("peewee_notes.sqlite3")
        try temp.db.close()
        let path = temp.path
        let outcomes = Locked<[(name: String, error: ModelError?, failure: String?)]>([])
        DispatchQueue.concurrentPerform(iterations: 2) { _ in
            do {
                let db = try Database(path: path)
                for i in 0..<200 {
                    let author = R7PwAuthor(); author.name = "same-\(i)"
                    do { try db.save(author); outcomes.withLock { $0.append((author.name, nil, nil)) } }
                    catch let error as ModelError { outcomes.withLock { $0.append((author.name, error, nil)) } }
                }
                try db.close()
            } catch {
                outcomes.withLock { $0.append(("", nil, "\(error)")) }
            }
        }
        let db = try temp.reopen()
        let all = outcomes.withLock { $0 }
        #expect(all.compactMap(\.failure) == [])
        #expect(all.filter { $0.error == nil }.count == 200)
        #expect(try db.value(Int.self, "SELECT count(*) FROM author WHERE name LIKE 'same-%'") == 200)
        for (name, error, _) in all {
            guard let error else { continue }
            #expect(error.kind == .duplicateKey && error.properties == ["name"])
            #expect(try error.key == db.value(Int64.self, "SELECT id FROM author WHERE name = ?", name).map { SQLValue.integer($0) }, "\(name)")
        }
    }
}
