import Foundation

import StrataTestSupport
import Testing
@testable import Strata

// Review 13, second reader: what Fixtures/interop proves with the tools themselves (JSON, decimals, floats,
// UUID links), reduced to the case each defect it found needs.

private struct R13Data: Codable, Equatable, JSONColumnValue {
    var title = ""
    var tags: [String] = []
    var whole = 0.0
}

private final class R13Doc: Model {
    static let tableName = "doc"
    var id: Int64 = 0
    var data = R13Data()
    required init() {}
}

struct Review13InteropTests {
    /// peewee's `JSONField` stores `json(json.dumps(value))`: SQLite's minified text, with the `\u` escapes
    /// json.dumps made. Strata wrote its own raw UTF-8 there, and peewee's lookup
    /// `Doc.data["title"] == "café"` (`data -> '$."title"' = json('"caf\u00e9"')`) missed the row.
    @Test func aCompactJSONColumnThatEscapesKeepsItsEscapes() throws {
        let temp = try TemporaryDatabase(), db = temp.db
        try db.execute(#"CREATE TABLE "doc" ("id" INTEGER NOT NULL PRIMARY KEY, "data" TEXT NOT NULL)"#)
        try db.execute(#"INSERT INTO doc (id, data) VALUES (1, json('{"title": "caf\u00e9 \u2713", "tags": ["\u00fc"], "whole": 2.0}'))"#)
        #expect(try db.value(String.self, "SELECT data FROM doc") == #"{"title":"caf\u00e9 \u2713","tags":["\u00fc"],"whole":2.0}"#)
        let doc = try #require(try db.object(R13Doc.self, forKey: 1))
        #expect(doc.data == R13Data(title: "café ✓", tags: ["ü"], whole: 2))
        doc.data.title = "neu 😀"
        try db.save(doc)
        #expect(try db.value(String.self, "SELECT data FROM doc") == #"{"tags":["\u00fc"],"title":"neu \ud83d\ude00","whole":2.0}"#)
        #expect(try db.value(Int64.self, #"SELECT id FROM doc WHERE data -> '$."title"' = json('"neu \ud83d\ude00"')"#) == 1)
        let new = R13Doc()
        new.data = R13Data(title: "é", tags: [], whole: 1.5)
        try db.save(new)
        #expect(try db.value(String.self, "SELECT data FROM doc WHERE id = ?", new.id) == #"{"tags":[],"title":"\u00e9","whole":1.5}"#)
        #expect(doc.changedProperties == [] && new.changedProperties == [])
        #expect(try db.objects(R13Doc.self, where: \.data == R13Data(title: "é", tags: [], whole: 1.5)).map(\.id) == [new.id])
        // A compact column that holds raw UTF-8 (or nothing beyond ASCII) keeps Strata's own layout.
        #expect(JSONStyle.detect([#"{"a":"é"}"#, #"{"b":"\u00e9"}"#]) == .native)
        #expect(JSONStyle.detect([#"{"a":1}"#]) == .native)
        #expect(JSONStyle.detect([#"{"a":"\u00e9"}"#, "[]"]) == .jsonText(spaced: false, asciiOnly: true))
        #expect(JSONStyle.detect([#"{"a":"\u00e9"}"#, #"{"a": 1}"#]) == .native)
    }
}
