import Foundation
import Strata
import StrataPostgres
import Testing

// Relationships on PostgreSQL: a reference saved as its target's key (a foreign key with its ON DELETE),
// resolved lazily through the identity map, and a parent's children.

private final class PGWriter: Model {
    static let tableName = "writer"
    var id: Int64 = 0
    var name = ""
    @Children(by: \PGBook.$writer, orderBy: .ascending(\PGBook.title)) var books: [PGBook]
    required init() {}
}

private final class PGBook: Model {
    static let tableName = "book"
    var id: Int64 = 0
    var title = ""
    @Reference(onDelete: .cascade) var writer: PGWriter?
    required init() {}
}

@Suite("PostgreSQL relationships", .enabled(if: postgresURL != nil, "STRATA_POSTGRES_URL is not set (run under Scripts/with-postgres.sh)"))
struct PostgresRelationshipTests {
    @Test func referencesAreKeysResolvedThroughTheIdentityMapAndChildrenLoad() throws {
        try withDatabase { db in
            let tolkien = PGWriter()
            tolkien.name = "Tolkien"
            try db.save(tolkien)
            for title in ["The Hobbit", "Silmarillion"] {
                let book = PGBook()
                book.title = title
                book.writer = tolkien
                try db.save(book)
            }
            // Stored as the writer's key, under a foreign key that cascades.
            #expect(try db.column(Int.self, "SELECT writer FROM book ORDER BY id") == [1, 1])
            #expect(try db.value(String.self, """
                SELECT confdeltype::text FROM pg_constraint WHERE conrelid = 'book'::regclass AND contype = 'f'
                """) == "c")
            // Another handle: the reference is a fault, resolved to that handle's one instance.
            let other = try Database(postgresURL: postgresURL ?? "")
            defer { try? other.close() }
            try other.execute("SET search_path TO \(try db.value(String.self, "SELECT current_schema()") ?? "")")
            let books = try other.objects(PGBook.self, orderBy: .ascending(\.id))
            #expect(books.count == 2)
            let writer = try #require(books[0].writer)
            #expect(writer.name == "Tolkien")
            #expect(books[1].writer === writer)
            #expect(writer.books.map(\.title) == ["Silmarillion", "The Hobbit"])
            #expect(writer.books[0] === books[1])
            // Moving a book to no writer writes the key column only.
            books[0].writer = nil
            try other.save(books[0])
            #expect(try db.rows("SELECT writer FROM book WHERE id = 1")[0].values == [.null])
        }
    }
}
