import Foundation
import StrataTestSupport
import Testing
@testable import Strata

// A reference whose key no row has throws an error naming the related model and the key, and the owner:
// its model, its key, the reference's property and column (the principle: errors name what went wrong).

private final class RETarget: Model {
    var id = UUID()
    var name = ""
    required init() {}
}

private final class REHolder: Model {
    var id: Int64 = 0
    @Reference var target: RETarget?
    required init() {}
}

/// Two references to the same model: the error names the one holding the missing key.
private final class REPair: Model {
    var id: Int64 = 0
    @Reference var left: REPlain?
    @Reference var right: REPlain?
    required init() {}
}

private final class REPlain: Model {
    var id: Int64 = 0
    required init() {}
}

@Suite struct ReferenceErrorTests {
    /// A UUID reference over a column another tool filled with text that is no UUID.
    @Test func anUndecodableKeyNamesTheOwnerPropertyColumnAndKey() throws {
        let temp = try TestDatabase()
        let db = temp.db
        try db.execute("""
            CREATE TABLE "RETarget"(id TEXT PRIMARY KEY, name TEXT NOT NULL DEFAULT '');
            CREATE TABLE "REHolder"(id INTEGER PRIMARY KEY, target TEXT);
            INSERT INTO "REHolder" VALUES (7, 'garbage');
            """)
        let holder = try #require(try db.object(REHolder.self, forKey: 7))
        #expect(holder.target == nil)   // a property read cannot throw: the handle's load() does
        let error = try #require(throws: ModelError.self) { try holder.$target.load() }
        #expect(error.kind == .notFound)
        #expect(error.model == "RETarget")
        #expect(error.key == .text("garbage"))
        #expect(error.message == #"REHolder integer 7's target (column "target") holds the key text 'garbage', and no row of RETarget has it"#)
    }

    /// An integer reference whose row is gone (no foreign key), read lazily: the property holding it is named,
    /// not its sibling reference to the same model.
    @Test func aMissingRowNamesTheReferenceHoldingItsKey() throws {
        let temp = try TestDatabase()
        let db = temp.db
        try db.execute("""
            CREATE TABLE "REPlain"(id INTEGER PRIMARY KEY);
            CREATE TABLE "REPair"(id INTEGER PRIMARY KEY, "left" INTEGER, "right" INTEGER);
            INSERT INTO "REPlain" VALUES (1);
            INSERT INTO "REPair" VALUES (3, 1, 2);
            """)
        let pair = try #require(try db.object(REPair.self, forKey: 3))
        #expect(try pair.$left.load()?.id == 1)
        let error = try #require(throws: ModelError.self) { try pair.$right.load() }
        #expect(error.kind == .notFound)
        #expect(error.model == "REPlain")
        #expect(error.key == .integer(2))
        #expect(error.message == #"REPair integer 3's right (column "right") holds the key integer 2, and no row of REPlain has it"#)
    }
}
