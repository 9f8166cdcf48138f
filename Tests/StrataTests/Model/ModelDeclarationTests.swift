import Foundation
import StrataTestSupport
import Testing
@testable import Strata

// Declaring models (issue 3, "Declaring models"): static declarations, key types, bad declarations.

private final class DeclPlain: Model {
    var id: Int64 = 0
    var title = ""
    required init() {}
}

private final class DeclIntKey: Model {
    var id = 0
    var title = ""
    required init() {}
}

private final class DeclOptionalKey: Model {
    var id: Int64?
    var title = ""
    required init() {}
}

private final class DeclTextKey: Model {
    static let tableName = "codes"
    static let primaryKey = "code"
    var code = ""
    var label = ""
    required init() {}
}

private final class DeclUUIDKey: Model {
    var id = UUID()
    var label = ""
    required init() {}
}

private final class DeclRandomKey: Model {
    static let randomKeys = true
    var id: Int64 = 0
    var label = ""
    required init() {}
}

private final class DeclSubset: Model {
    static let persistentProperties: [String] = ["label", "id"]
    var id: Int64 = 0
    var cache = [1, 2, 3]
    var label = ""
    required init() {}
}

private final class DeclBadPersistent: Model {
    static let persistentProperties: [String] = ["id", "nmae"]
    var id: Int64 = 0
    var name = ""
    var age = 0
    required init() {}
}

private final class DeclBadIndex: Model {
    static let indices: [[String]] = [["name"], ["agee"]]
    var id: Int64 = 0
    var name = ""
    var age = 0
    required init() {}
}

private final class DeclBadUniqueIndex: Model {
    static let uniqueIndices: [[String]] = [["emial"]]
    var id: Int64 = 0
    var email = ""
    required init() {}
}

private final class DeclIndexOnTransient: Model {
    static let persistentProperties: [String] = ["id", "name"]
    static let indices: [[String]] = [["scratch"]]
    var id: Int64 = 0
    var name = ""
    var scratch = 0
    required init() {}
}

private final class DeclBadPrimaryKey: Model {
    static let primaryKey = "ident"
    var id: Int64 = 0
    required init() {}
}

private final class DeclDoubleKey: Model {
    var id = 0.0
    required init() {}
}

private struct NotStorable { var pointer: Int = 0 }
private final class Unrelated {}

private final class DeclUnsupported: Model {
    var id: Int64 = 0
    var name = ""
    var gadget = NotStorable()
    required init() {}
}

private final class DeclUnsupportedOptionalClass: Model {
    var id: Int64 = 0
    var owner: Unrelated?
    required init() {}
}

private final class DeclUnsupportedLeftOut: Model {
    static let persistentProperties: [String] = ["id", "name"]
    var id: Int64 = 0
    var name = ""
    var gadget = NotStorable()
    required init() {}
}

@Suite struct ModelDeclarationTests {
    @Test func defaultsComeFromTheType() throws {
        #expect(DeclPlain.tableName == "DeclPlain")
        #expect(DeclPlain.primaryKey == "id")
        #expect(DeclPlain.persistentProperties.isEmpty)
        #expect(DeclPlain.indices.isEmpty && DeclPlain.uniqueIndices.isEmpty)
        #expect(DeclPlain.randomKeys == false)
        let metadata = try ModelMetadata.of(DeclPlain.self)
        #expect(metadata.properties.map(\.name) == ["id", "title"])
        // Built once, cached.
        #expect(try ModelMetadata.of(DeclPlain.self) === metadata)
    }

    @Test func int64KeyIsAssignedBySQLite() throws {
        let db = try Database()
        let a = DeclPlain(), b = DeclPlain()
        try db.save(a); try db.save(b)
        #expect((a.id, b.id) == (1, 2))
        #expect(try db.value(Int64.self, "SELECT max(id) FROM DeclPlain") == 2)
        // An explicit key is kept.
        let c = DeclPlain(); c.id = 40
        try db.save(c)
        #expect(c.id == 40)
        #expect(try db.object(DeclPlain.self, forKey: 40) === c)
    }

    @Test func intAndOptionalKeysAreAssignedToo() throws {
        let db = try Database()
        let a = DeclIntKey(); a.title = "a"
        try db.save(a)
        #expect(a.id == 1)
        #expect(try db.object(DeclIntKey.self, forKey: 1) === a)
        let b = DeclOptionalKey()
        #expect(b.id == nil)
        try db.save(b)
        #expect(b.id == 1)
        #expect(try db.object(DeclOptionalKey.self, forKey: Int64(1)) === b)
    }

    @Test func stringPrimaryKey() throws {
        let db = try Database()
        let a = DeclTextKey(); a.code = "A-1"; a.label = "first"
        try db.save(a)
        #expect(try db.value(String.self, "SELECT type FROM pragma_table_info('codes') WHERE name = 'code'") == "TEXT")
        #expect(try db.value(Int.self, "SELECT pk FROM pragma_table_info('codes') WHERE name = 'code'") == 1)
        #expect(try db.object(DeclTextKey.self, forKey: "A-1") === a)
        a.label = "changed"
        try db.save(a)
        #expect(try db.value(String.self, "SELECT label FROM codes WHERE code = 'A-1'") == "changed")
        #expect(try db.count(DeclTextKey.self) == 1)
        try db.execute("UPDATE $T SET label = 'raw' WHERE $PK = ?", for: DeclTextKey.self, "A-1")
        #expect(a.label == "raw")
        try db.delete(a)
        #expect(a.isDeleted)
        #expect(try db.object(DeclTextKey.self, forKey: "A-1") == nil)
        // A key must be given: an unset (nil) text key is an error, never a NULL key.
        let noKey = DeclTextKey()
        noKey.code = ""
        try db.save(noKey)  // "" is a valid key
        #expect(try db.object(DeclTextKey.self, forKey: "") === noKey)
    }

    @Test func uuidPrimaryKey() throws {
        let db = try Database()
        let a = DeclUUIDKey(); a.label = "a"
        let b = DeclUUIDKey(); b.label = "b"
        #expect(a.id != b.id)
        try db.save(a); try db.save(b)
        #expect(try db.value(String.self, "SELECT id FROM DeclUUIDKey WHERE label = 'a'") == a.id.uuidString.lowercased())
        #expect(try db.object(DeclUUIDKey.self, forKey: a.id) === a)
        let db2Fetch = try db.objects(DeclUUIDKey.self, forKeys: [b.id, a.id])
        #expect(db2Fetch.count == 2 && db2Fetch[0] === b && db2Fetch[1] === a)
        try db.delete(b)
        #expect(b.isDeleted)
        #expect(try db.count(DeclUUIDKey.self) == 1)
    }

    @Test func uuidKeyRowsReadInAFreshHandle() throws {
        let temp = try TemporaryDatabase()
        let a = DeclUUIDKey(); a.label = "persisted"
        try temp.db.save(a)
        let id = a.id
        let db = try temp.reopen()
        let fetched = try #require(try db.object(DeclUUIDKey.self, forKey: id))
        #expect(fetched.id == id && fetched.label == "persisted")
        #expect(try db.object(DeclUUIDKey.self, forKey: id) === fetched)
    }

    @Test func randomKeys() throws {
        let db = try Database()
        let objects = (0..<20).map { i in let o = DeclRandomKey(); o.label = "\(i)"; return o }
        try db.save(objects)
        let keys = objects.map(\.id)
        #expect(keys.allSatisfy { $0 > 0 })
        #expect(Set(keys).count == 20)
        // Not SQLite's 1, 2, 3, ...
        #expect(keys != Array(1...20).map(Int64.init))
        #expect(keys.contains { $0 > 1_000_000 })
        #expect(Set(try db.column(Int64.self, "SELECT id FROM DeclRandomKey")) == Set(keys))
        #expect(try db.object(DeclRandomKey.self, forKey: keys[7]) === objects[7])
    }

    @Test func persistentPropertiesSelectColumnsInListedOrderKeyFirst() throws {
        let db = try Database()
        let o = DeclSubset(); o.label = "x"; o.cache = [9]
        try db.save(o)
        #expect(try columnsOf("DeclSubset", in: db).map(\.name) == ["id", "label"])
        let temp = try TemporaryDatabase()
        try temp.db.save(o.copyForTest())
        let db2 = try temp.reopen()
        let fetched = try #require(try db2.first(DeclSubset.self))
        #expect(fetched.label == "x")
        #expect(fetched.cache == [1, 2, 3])  // not stored: the init() value
    }

    @Test func unknownPersistentPropertyListsTheAvailableOnes() throws {
        let db = try Database()
        let error = try #require(throws: ModelError.self) { try db.save(DeclBadPersistent()) }
        #expect(error.kind == .unknownProperty)
        #expect(error.property == "nmae")
        #expect(error.model == "DeclBadPersistent")
        #expect(error.message.contains("persistentProperties"))
        #expect(error.message.contains("id, name, age"))
        // Nothing was created.
        #expect(try schemaSnapshot(db) == [])
        // Every entry point reports it.
        #expect(throws: ModelError.self) { try db.objects(DeclBadPersistent.self) }
        #expect(throws: ModelError.self) { try db.schemaPlan(for: DeclBadPersistent.self) }
    }

    @Test func unknownIndexPropertyListsTheAvailableOnes() throws {
        let db = try Database()
        let error = try #require(throws: ModelError.self) { try db.syncSchema(DeclBadIndex.self) }
        #expect(error.kind == .unknownProperty)
        #expect(error.property == "agee")
        #expect(error.message.contains("indices"))
        #expect(error.message.contains("id, name, age"))

        let unique = try #require(throws: ModelError.self) { try db.syncSchema(DeclBadUniqueIndex.self) }
        #expect(unique.kind == .unknownProperty)
        #expect(unique.property == "emial")
        #expect(unique.message.contains("uniqueIndices"))
        #expect(unique.message.contains("email"))

        let transient = try #require(throws: ModelError.self) { try db.syncSchema(DeclIndexOnTransient.self) }
        #expect(transient.kind == .unknownProperty)
        #expect(transient.property == "scratch")
        #expect(try schemaSnapshot(db) == [])
    }

    @Test func unknownOrUnsuitablePrimaryKey() throws {
        let db = try Database()
        let unknown = try #require(throws: ModelError.self) { try db.save(DeclBadPrimaryKey()) }
        #expect(unknown.kind == .unknownProperty)
        #expect(unknown.property == "ident")
        #expect(unknown.message.contains("id"))
        let double = try #require(throws: ModelError.self) { try db.save(DeclDoubleKey()) }
        #expect(double.kind == .invalidPrimaryKey)
        #expect(double.property == "id")
    }

    @Test func unsupportedPropertyTypeIsAnErrorNamingIt() throws {
        let db = try Database()
        let error = try #require(throws: ModelError.self) { try db.save(DeclUnsupported()) }
        #expect(error.kind == .unsupportedType)
        #expect(error.property == "gadget")
        #expect(error.message.contains("NotStorable"))
        #expect(error.description.contains("gadget"))

        let classError = try #require(throws: ModelError.self) { try db.objects(DeclUnsupportedOptionalClass.self) }
        #expect(classError.kind == .unsupportedType)
        #expect(classError.property == "owner")
        #expect(classError.message.contains("Unrelated"))
        #expect(try schemaSnapshot(db) == [])

        // Left out of persistentProperties, the same type is fine.
        let ok = DeclUnsupportedLeftOut(); ok.name = "fine"
        try db.save(ok)
        #expect(try db.count(DeclUnsupportedLeftOut.self) == 1)
    }
}

private extension DeclSubset {
    func copyForTest() -> DeclSubset {
        let copy = DeclSubset()
        copy.label = label
        copy.cache = cache
        return copy
    }
}
