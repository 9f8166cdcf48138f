import Foundation
import Testing
import Strata
import StrataTestSupport

// Issue 33, points 5-7: a reference to a deleted object, foreign keys of composite-key parts, keys of the
// wrong shape.

// MARK: Models

private final class R17Artist: Model {
    static let tableName = "r17x_artist"
    var id: Int64 = 0
    var name = ""
    required init() {}
}

private final class R17Album: Model {
    static let tableName = "r17x_album"
    var id: Int64 = 0
    var title = ""
    @Reference var producer: R17Artist?
    required init() {}
}

/// A join row keyed by two references (a credit of an artist on an album).
private final class R17Credit: Model {
    static let tableName = "r17x_credit"
    static let compositeKey = ["album", "artist"]
    @Reference var album: R17Album?
    @Reference var artist: R17Artist?
    var role = ""
    required init() {}
}

private final class R17Post: Model {
    static let tableName = "r17x_post"
    var id: Int64 = 0
    var title = ""
    required init() {}
}

private final class R17Tag: Model {
    static let tableName = "r17x_tag"
    var id: Int64 = 0
    var name = ""
    required init() {}
}

private final class R17PostTag: Model {
    static let tableName = "r17x_post_tag"
    static let compositeKey = ["post", "tag"]
    @Reference(onDelete: .cascade) var post: R17Post?
    @Reference(onDelete: .cascade) var tag: R17Tag?
    required init() {}
}

/// The same table, opted in to rebuilds.
private final class R17PostTagRebuilt: Model {
    static let tableName = "r17x_post_tag"
    static let compositeKey = ["post", "tag"]
    static let schemaRebuild = SchemaRebuild.whenNeeded
    @Reference(onDelete: .cascade) var post: R17Post?
    @Reference(onDelete: .cascade) var tag: R17Tag?
    required init() {}
}

private final class R17PostTagSetNull: Model {
    static let tableName = "r17x_post_tag_set_null"
    static let compositeKey = ["post", "tag"]
    @Reference(onDelete: .setNull) var post: R17Post?
    @Reference(onDelete: .cascade) var tag: R17Tag?
    required init() {}
}

private final class R17PostTagRestrict: Model {
    static let tableName = "r17x_post_tag_restrict"
    static let compositeKey = ["post", "tag"]
    @Reference(onDelete: .restrict) var post: R17Post?
    @Reference var tag: R17Tag?
    required init() {}
}

private final class R17Label: Model {
    static let tableName = "r17x_label"
    var id = ""
    var color = ""
    required init() {}
}

private final class R17Device: Model {
    static let tableName = "r17x_device"
    var id = UUID()
    var name = ""
    required init() {}
}

/// A join row keyed by a text-keyed and a UUID-keyed parent.
private final class R17DeviceLabel: Model {
    static let tableName = "r17x_device_label"
    static let compositeKey = ["device", "label"]
    @Reference(onDelete: .cascade) var device: R17Device?
    @Reference(onDelete: .cascade) var label: R17Label?
    var note = ""
    required init() {}
}

private final class R17Score: Model {
    static let tableName = "r17x_score"
    static let compositeKey = ["player", "game"]
    var player: Int64 = 0
    var game: Int64 = 0
    var points = 0
    required init() {}
}

// MARK: Helpers

private func text(_ db: Database, _ sql: String) throws -> String? {
    try db.value(String.self, sql)
}

@Suite struct Review17ReferenceTests {

    // MARK: 5. A reference to a deleted object

    @Test func insertReferringToADeletedObjectThrowsDeletedAndWritesNothing() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        let gone = R17Artist(); gone.name = "gone"
        try db.save(gone)
        let goneID = gone.id
        try db.delete(gone)
        // Assigned after its delete: the reference has no key to store (it stored NULL before).
        let album = R17Album(); album.title = "A"; album.producer = gone
        let error = #expect(throws: ModelError.self) { try db.save(album) }
        #expect(error?.kind == .deleted)
        #expect(error?.model == "R17Album" && error?.property == "producer")
        #expect(error?.message.contains("R17Artist with key \(SQLValue.integer(goneID))") == true)
        #expect(try db.value(Int.self, "SELECT count(*) FROM r17x_album") == 0)
        #expect(album.id == 0)
        // Assigned while saved, then deleted: the dead key is not stored either.
        let later = R17Artist(); later.name = "later"
        try db.save(later)
        let second = R17Album(); second.title = "B"; second.producer = later
        try db.delete(later)
        let error2 = #expect(throws: ModelError.self) { try db.save(second) }
        #expect(error2?.kind == .deleted && error2?.property == "producer")
        #expect(error2?.message.contains("R17Artist with key \(SQLValue.integer(later.id))") == true)
        #expect(try db.value(Int.self, "SELECT count(*) FROM r17x_album") == 0)
        // nil stores NULL, as before; a saved object stores its key.
        second.producer = nil
        try db.save(second)
        #expect(try text(db, "SELECT typeof(producer) FROM r17x_album WHERE id = \(second.id)") == "null")
        let kept = R17Artist(); kept.name = "kept"
        try db.save(kept)
        album.producer = kept
        try db.save(album)
        #expect(try text(db, "SELECT quote(producer) FROM r17x_album WHERE id = \(album.id)") == "\(kept.id)")
    }

    @Test func updateReassigningToADeletedObjectThrowsAndKeepsTheRow() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        let first = R17Artist(); first.name = "first"
        let gone = R17Artist(); gone.name = "gone"
        try db.save([first, gone])
        let album = R17Album(); album.title = "A"; album.producer = first
        try db.save(album)
        try db.delete(gone)
        album.producer = gone
        album.title = "A2"
        let error = #expect(throws: ModelError.self) { try db.save(album) }
        #expect(error?.kind == .deleted && error?.model == "R17Album" && error?.property == "producer")
        #expect(error?.key == .integer(album.id))
        #expect(error?.message.contains("R17Artist with key \(SQLValue.integer(gone.id))") == true)
        #expect(try text(db, "SELECT quote(producer) || '/' || title FROM r17x_album") == "\(first.id)/A")
        // Set to nil: stores NULL (an optional reference may be emptied).
        album.producer = nil
        try db.save(album)
        #expect(try text(db, "SELECT typeof(producer) || '/' || title FROM r17x_album") == "null/A2")
        // A reference left unchanged to a since-deleted row does not stop saving other properties.
        album.producer = first
        try db.save(album)
        try db.delete(first)
        album.title = "A3"
        try db.save(album)
        #expect(try text(db, "SELECT quote(producer) || '/' || title FROM r17x_album") == "\(first.id)/A3")
    }

    @Test func aTargetDeletedByRawSQLIsRefusedToo() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        let artist = R17Artist(); artist.name = "raw"
        try db.save(artist)
        let album = R17Album(); album.producer = artist
        try db.execute("DELETE FROM $T WHERE id = ?", for: R17Artist.self, artist.id)
        #expect(artist.isDeleted)
        let error = #expect(throws: ModelError.self) { try db.save(album) }
        #expect(error?.kind == .deleted && error?.property == "producer")
        #expect(try db.value(Int.self, "SELECT count(*) FROM r17x_album") == 0)
    }

    @Test func aBatchWithOneReferenceToADeletedObjectWritesNothing() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        let alive = R17Artist(), gone = R17Artist()
        try db.save([alive, gone])
        try db.delete(gone)
        let good = R17Album(); good.title = "good"; good.producer = alive
        let bad = R17Album(); bad.title = "bad"; bad.producer = gone
        let error = #expect(throws: ModelError.self) { try db.save([good, bad]) }
        #expect(error?.kind == .deleted && error?.property == "producer")
        #expect(try db.value(Int.self, "SELECT count(*) FROM r17x_album") == 0)
        #expect(good.id == 0 && !good.isPersisted)
    }

    @Test func aCompositeKeyPartReferringToADeletedObjectThrowsDeleted() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        let album = R17Album(); album.title = "A"
        let gone = R17Artist(); gone.name = "gone"
        try db.save(album); try db.save(gone)
        try db.delete(gone)
        let credit = R17Credit(); credit.album = album; credit.artist = gone; credit.role = "bass"
        let error = #expect(throws: ModelError.self) { try db.save(credit) }
        #expect(error?.kind == .deleted && error?.model == "R17Credit" && error?.property == "artist")
        #expect(error?.message.contains("R17Artist with key \(SQLValue.integer(gone.id))") == true)
        #expect(try db.value(Int.self, "SELECT count(*) FROM r17x_credit") == 0)
        // Deleted after the assignment: the key part's dead key is not stored either.
        let later = R17Artist(); try db.save(later)
        let credit2 = R17Credit(); credit2.album = album; credit2.artist = later
        try db.delete(later)
        let error2 = #expect(throws: ModelError.self) { try db.save(credit2) }
        #expect(error2?.kind == .deleted && error2?.property == "artist")
        #expect(try db.value(Int.self, "SELECT count(*) FROM r17x_credit") == 0)
    }

    @Test func aPoolWriteRefusesAReferenceToADeletedObject() throws {
        let temp = try TemporaryDatabase()
        let pool = try DatabasePool(path: temp.folder.appendingPathComponent("pool.sqlite").path, readers: 1)
        let result = try pool.blocking.write { db -> String in
            let gone = R17Artist(); try db.save(gone)
            try db.delete(gone)
            let album = R17Album(); album.producer = gone
            do {
                try db.save(album)
                return "saved"
            } catch let error as ModelError {
                return "\(error.kind)/\(error.property ?? "")/\(try db.value(Int.self, "SELECT count(*) FROM r17x_album") ?? -1)"
            }
        }
        #expect(result == "deleted/producer/0")
        try pool.blocking.close()
    }

    // MARK: 6. Foreign keys of composite-key parts

    @Test func compositeKeyPartsGetTheirForeignKeys() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        _ = try db.syncSchema(R17PostTag.self)
        #expect(try text(db, "SELECT sql FROM sqlite_master WHERE name = 'r17x_post_tag'")
                == #"CREATE TABLE "r17x_post_tag" ("post" INTEGER NOT NULL REFERENCES "r17x_post" ("id") ON DELETE CASCADE, "tag" INTEGER NOT NULL REFERENCES "r17x_tag" ("id") ON DELETE CASCADE, PRIMARY KEY ("post", "tag"))"#)
        #expect(try text(db, """
            SELECT group_concat("from" || ' ' || "table" || ' ' || "to" || ' ' || on_delete, ', ')
            FROM (SELECT * FROM pragma_foreign_key_list('r17x_post_tag') ORDER BY "from")
            """) == "post r17x_post id CASCADE, tag r17x_tag id CASCADE")
        // A second use plans nothing.
        #expect(try db.schemaPlan(for: R17PostTag.self).isEmpty)
    }

    @Test func deletingAPostRemovesItsJoinRowsAndMarksLiveOnesDeleted() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        let p1 = R17Post(), p2 = R17Post(), t1 = R17Tag(), t2 = R17Tag()
        try db.save([p1, p2]); try db.save([t1, t2])
        var links: [R17PostTag] = []
        for (post, tag) in [(p1, t1), (p1, t2), (p2, t1)] {
            let link = R17PostTag(); link.post = post; link.tag = tag
            links.append(link)
        }
        try db.save(links)
        try db.delete(p1)
        #expect(try text(db, "SELECT group_concat(post || '-' || tag) FROM r17x_post_tag") == "\(p2.id)-\(t1.id)")
        #expect(links.map(\.isDeleted) == [true, true, false])
        // A tag's delete, through raw SQL, cascades too.
        try db.execute("DELETE FROM $T WHERE id = ?", for: R17Tag.self, t1.id)
        #expect(try db.value(Int.self, "SELECT count(*) FROM r17x_post_tag") == 0)
        #expect(links[2].isDeleted)
    }

    @Test func setNullOnAKeyPartIsAnErrorAtFirstUse() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        let error = #expect(throws: ModelError.self) { _ = try db.syncSchema(R17PostTagSetNull.self) }
        #expect(error?.kind == .invalidPrimaryKey && error?.model == "R17PostTagSetNull" && error?.property == "post")
        #expect(error?.message.contains(".cascade") == true)
        #expect(try db.value(Int.self, "SELECT count(*) FROM sqlite_master WHERE name = 'r17x_post_tag_set_null'") == 0)
        let link = R17PostTagSetNull()
        let error2 = #expect(throws: ModelError.self) { try db.save(link) }
        #expect(error2?.kind == .invalidPrimaryKey && error2?.property == "post")
    }

    @Test func restrictOnAKeyPartRefusesTheDeleteAndNoActionGetsNoForeignKey() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        let post = R17Post(), tag = R17Tag()
        try db.save(post); try db.save(tag)
        let link = R17PostTagRestrict(); link.post = post; link.tag = tag
        try db.save(link)
        #expect(try text(db, "SELECT sql FROM sqlite_master WHERE name = 'r17x_post_tag_restrict'")
                == #"CREATE TABLE "r17x_post_tag_restrict" ("post" INTEGER NOT NULL REFERENCES "r17x_post" ("id") ON DELETE RESTRICT, "tag" INTEGER NOT NULL, PRIMARY KEY ("post", "tag"))"#)
        let error = #expect(throws: DatabaseError.self) { try db.delete(post) }
        #expect(error?.message.contains("FOREIGN KEY constraint failed") == true)
        #expect(!post.isDeleted && !link.isDeleted)
        #expect(try db.value(Int.self, "SELECT count(*) FROM r17x_post") == 1)
        // The tag's part declares no action: no foreign key, the join row stays (as for any reference).
        try db.delete(tag)
        #expect(try db.value(Int.self, "SELECT count(*) FROM r17x_post_tag_restrict") == 1)
    }

    @Test func textAndUUIDKeyedParentsCascadeIntoJoinRows() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        let red = R17Label(); red.id = "red"
        let blue = R17Label(); blue.id = "blue"
        let phone = R17Device(); phone.name = "phone"
        let laptop = R17Device(); laptop.name = "laptop"
        try db.save([red, blue]); try db.save([phone, laptop])
        var links: [R17DeviceLabel] = []
        for (device, label) in [(phone, red), (phone, blue), (laptop, red)] {
            let link = R17DeviceLabel(); link.device = device; link.label = label
            links.append(link)
        }
        try db.save(links)
        #expect(try text(db, "SELECT sql FROM sqlite_master WHERE name = 'r17x_device_label'")
                == #"CREATE TABLE "r17x_device_label" ("device" TEXT NOT NULL REFERENCES "r17x_device" ("id") ON DELETE CASCADE, "label" TEXT NOT NULL REFERENCES "r17x_label" ("id") ON DELETE CASCADE, "note" TEXT NOT NULL DEFAULT '', PRIMARY KEY ("device", "label"))"#)
        try db.delete(red)
        #expect(links.map(\.isDeleted) == [true, false, true])
        try db.delete(phone)
        #expect(links[1].isDeleted)
        #expect(try db.value(Int.self, "SELECT count(*) FROM r17x_device_label") == 0)
    }

    @Test func anExistingJoinTableWithoutForeignKeysIsReportedNotRebuilt() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        _ = try db.syncSchema(R17Post.self); _ = try db.syncSchema(R17Tag.self)
        // As sync made it before key parts had foreign keys, with a row.
        let old = #"CREATE TABLE "r17x_post_tag" ("post" INTEGER NOT NULL, "tag" INTEGER NOT NULL, PRIMARY KEY ("post", "tag"))"#
        try db.execute(old)
        try db.execute("INSERT INTO r17x_post_tag VALUES (1, 2)")
        // As for any reference column that declares a foreign key its table lacks: an error naming the column
        // and the opt-in; the table is left as it was.
        let error = #expect(throws: SchemaError.self) { _ = try db.syncSchema(R17PostTag.self) }
        #expect(error?.column == "post" && error?.found == "no FOREIGN KEY")
        #expect(error?.remedy.contains("schemaRebuild") == true)
        #expect(try text(db, "SELECT sql FROM sqlite_master WHERE name = 'r17x_post_tag'") == old)
        #expect(try text(db, "SELECT group_concat(post || '-' || tag) FROM r17x_post_tag") == "1-2")
        // Opted in, the rebuild adds both foreign keys and keeps the row, whose post and tag now exist.
        let post = R17Post(); post.id = 1
        let tag = R17Tag(); tag.id = 2
        try db.save(post); try db.save(tag)
        let plan = try db.syncSchema(R17PostTagRebuilt.self)
        #expect(plan.rebuildsTable)
        #expect(try text(db, "SELECT sql FROM sqlite_master WHERE name = 'r17x_post_tag'")
                == #"CREATE TABLE "r17x_post_tag" ("post" INTEGER NOT NULL REFERENCES "r17x_post" ("id") ON DELETE CASCADE, "tag" INTEGER NOT NULL REFERENCES "r17x_tag" ("id") ON DELETE CASCADE, PRIMARY KEY ("post", "tag"))"#)
        #expect(try text(db, "SELECT group_concat(post || '-' || tag) FROM r17x_post_tag") == "1-2")
        try db.delete(post)
        #expect(try db.value(Int.self, "SELECT count(*) FROM r17x_post_tag") == 0)
    }

    // MARK: 7. Keys of the wrong shape

    @Test func aKeyOfTheWrongShapeThrowsInvalidPrimaryKey() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        let score = R17Score(); score.player = 1; score.game = 2; score.points = 7
        try db.save(score)
        func check(_ body: () throws -> Void, _ comment: Comment) {
            let error = #expect(throws: ModelError.self, comment) { try body() }
            #expect(error?.kind == .invalidPrimaryKey, comment)
            #expect(error?.model == "R17Score" && error?.properties == ["player", "game"], comment)
            #expect(error?.message.contains("player, game") == true, comment)
        }
        check({ _ = try db.object(R17Score.self, forKey: 1) }, "a plain integer")
        check({ _ = try db.object(R17Score.self, forKey: "(1, 2)x") }, "text that is no composite key")
        check({ _ = try db.object(R17Score.self, forKey: try CompositeKey(1)) }, "one part")
        check({ _ = try db.object(R17Score.self, forKey: try CompositeKey(1, 2, 3)) }, "three parts")
        check({ _ = try db.object(R17Score.self, forKey: try CompositeKey("a", 2)) }, "a text part for an integer")
        check({ _ = try db.object(R17Score.self, forKey: CompositeKey(values: [.integer(1), .null])) }, "a NULL part")
        check({ _ = try db.objects(R17Score.self, forKeys: [1, 2]) }, "forKeys: integers")
        check({ _ = try db.objects(R17Score.self, forKeys: [try CompositeKey(1, 2), try CompositeKey(1)]) }, "forKeys: one short")
        // The right shape still finds the row, or nothing.
        #expect(try db.object(R17Score.self, forKey: try CompositeKey(1, 2)) === score)
        #expect(try db.object(R17Score.self, forKey: try CompositeKey(2, 1)) == nil)
        #expect(try db.objects(R17Score.self, forKeys: [try CompositeKey(1, 2), try CompositeKey(9, 9)]).map(\.points) == [7])
    }

    @Test func aSingleKeyModelGivenACompositeKeyThrows() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        let artist = R17Artist(); try db.save(artist)
        let error = #expect(throws: ModelError.self) { _ = try db.object(R17Artist.self, forKey: try CompositeKey(artist.id, 2)) }
        #expect(error?.kind == .invalidPrimaryKey && error?.model == "R17Artist" && error?.property == "id")
        #expect(error?.message.contains("not a CompositeKey") == true)
        let error2 = #expect(throws: ModelError.self) { _ = try db.objects(R17Artist.self, forKeys: [try CompositeKey(artist.id, 2)]) }
        #expect(error2?.kind == .invalidPrimaryKey)
        // A text key spelled like one is still a text key.
        let label = R17Label(); label.id = "(1, 2)"; try db.save(label)
        #expect(try db.object(R17Label.self, forKey: "(1, 2)") === label)
        #expect(throws: ModelError.self) { _ = try db.object(R17Label.self, forKey: try CompositeKey(1, 2)) }
    }

    @Test func aPoolReadRefusesAKeyOfTheWrongShape() throws {
        let temp = try TemporaryDatabase()
        let pool = try DatabasePool(path: temp.folder.appendingPathComponent("pool.sqlite").path, readers: 1)
        try pool.blocking.write { db in
            let score = R17Score(); score.player = 1; score.game = 2
            try db.save(score)
        }
        let kinds = try pool.blocking.read { db -> [String] in
            var kinds: [String] = []
            for key in [try CompositeKey(1), try CompositeKey(1, 2, 3)] as [any ColumnValue] + [1] {
                do { _ = try db.object(R17Score.self, forKey: key); kinds.append("nil") } catch let error as ModelError { kinds.append("\(error.kind)") }
            }
            kinds.append(try db.object(R17Score.self, forKey: try CompositeKey(1, 2)) == nil ? "missing" : "found")
            return kinds
        }
        #expect(kinds == ["invalidPrimaryKey", "invalidPrimaryKey", "invalidPrimaryKey", "found"])
        try pool.blocking.close()
    }
}
