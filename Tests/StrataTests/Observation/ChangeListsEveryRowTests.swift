import Strata
import StrataTestSupport
import Testing

// `DatabaseChange.listsEveryRow`: true when the sets name every row a commit changed, false when rows changed
// that no one named (a WITHOUT ROWID table, whose rows SQLite's update hook does not report).

private final class ListsRowsNote: Model {
    static let tableName = "lists_rows_note"
    var id: Int64 = 0
    var text = ""
    required init() {}
}

@Suite struct ChangeListsEveryRowTests {
    @Test func aRowidTableListsItsRowsAndAWithoutRowIDTableSaysItCannot() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        _ = try db.syncSchema(ListsRowsNote.self)
        try db.execute("CREATE TABLE lists_rows_pair(a INTEGER, b INTEGER, PRIMARY KEY(a, b)) WITHOUT ROWID")
        var seen: [DatabaseChange] = []
        let observation = db.observeChanges { seen += $0 }
        defer { observation.cancel() }
        let note = ListsRowsNote()
        note.text = "a"
        try db.save(note)
        try db.execute("INSERT INTO lists_rows_pair VALUES (1, 2)")
        #expect(seen.map(\.table) == ["lists_rows_note", "lists_rows_pair"])
        #expect(seen.first?.insertedRowIDs == [1] && seen.first?.listsEveryRow == true)
        #expect(seen.last?.insertedRowIDs == [] && seen.last?.listsEveryRow == false)
    }
}
