import Foundation
import Strata
import StrataPostgres
import Testing

// Relationships on PostgreSQL as on SQLite (issue 35, point 4): prefetch and batched faults bind their keys as
// one array (`= ANY($1)`, one statement per level, integer, text and UUID keys), `@Siblings` load, prefetch,
// add and remove, composite keys, and ON DELETE CASCADE / SET NULL reflected in live instances. Statements are
// counted through the connection's `statementObserver`.

private final class RLTeam: Model {
    static let tableName = "rl_team"
    var id: Int64 = 0
    var name = ""
    @Children(by: \RLMember.$team, orderBy: .ascending(\RLMember.name)) var members: [RLMember]
    required init() {}
}

private final class RLMember: Model {
    static let tableName = "rl_member"
    var id: Int64 = 0
    var name = ""
    @Reference var team: RLTeam?
    @Reference var mentor: RLMember?
    required init() {}
}

private final class RLCountry: Model {
    static let tableName = "rl_country"
    static let primaryKey = "code"
    var code = ""
    var name = ""
    required init() {}
}

private final class RLDevice: Model {
    static let tableName = "rl_device"
    var id = UUID()
    var label = ""
    required init() {}
}

private final class RLSite: Model {
    static let tableName = "rl_site"
    var id: Int64 = 0
    @Reference var country: RLCountry?
    @Reference var device: RLDevice?
    required init() {}
}

private final class RLPost: Model {
    static let tableName = "rl_post"
    var id: Int64 = 0
    var title = ""
    @Siblings(through: "rl_post_tag", from: "post_id", to: "tag_id", orderBy: "name") var tags: [RLTag]
    required init() {}
}

private final class RLTag: Model {
    static let tableName = "rl_tag"
    var id: Int64 = 0
    var name = ""
    @Siblings(through: "rl_post_tag", from: "tag_id", to: "post_id") var posts: [RLPost]
    required init() {}
}

private final class RLNote: Model {
    static let tableName = "rl_note"
    var id: Int64 = 0
    var title = ""
    required init() {}
}

private final class RLLabel: Model {
    static let tableName = "rl_label"
    static let primaryKey = "code"
    var code = ""
    required init() {}
}

/// A composite key whose parts are references; the note's rows go with it (ON DELETE CASCADE).
private final class RLNoteLabel: Model {
    static let tableName = "rl_notelabel"
    static let compositeKey = ["note", "label"]
    @Reference(onDelete: .cascade) var note: RLNote?
    @Reference var label: RLLabel?
    var weight = 0
    required init() {}
}

private final class RLFolder: Model {
    static let tableName = "rl_folder"
    var id: Int64 = 0
    var name = ""
    required init() {}
}

private final class RLFile: Model {
    static let tableName = "rl_file"
    var id: Int64 = 0
    var name = ""
    @Reference(onDelete: .cascade) var folder: RLFolder?
    @Reference(onDelete: .setNull) var reviewer: RLFolder?
    required init() {}
}

/// The SQL of each statement a connection runs.
private final class PGStatementLog {
    private(set) var statements: [String] = []
    init(_ connection: PostgresConnection) {
        connection.statementObserver = { [weak self] sql in self?.statements.append(sql) }
    }
    var count: Int { statements.count }
    func during<T>(_ body: () throws -> T) rethrows -> (T, [String]) {
        let start = statements.count
        let result = try body()
        return (result, Array(statements[start...]))
    }
}

/// A handle on the test server in a schema of its own, and a second handle on the same schema made by
/// `open()` (nothing live in it), each with its statements logged.
private func withSchema<T>(_ body: (Database, () throws -> (Database, PGStatementLog)) throws -> T) throws -> T {
    let url = postgresURL ?? ""
    let db = try Database(postgresURL: url)
    let schema = "strata_rl_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
    try db.execute("CREATE SCHEMA \(schema); SET search_path TO \(schema)")
    var others: [Database] = []
    defer {
        for other in others { try? other.close() }
        try? db.execute("DROP SCHEMA \(schema) CASCADE")
        try? db.close()
    }
    return try body(db) {
        let connection = try PostgresConnection(url: url)
        let other = try Database(remote: connection)
        others.append(other)
        try other.execute("SET search_path TO \(schema)")
        return (other, PGStatementLog(connection))
    }
}

private func teamsAndMembers(_ db: Database, teams: Int, members: Int) throws {
    let made = (0..<teams).map { i in let t = RLTeam(); t.name = "T\(i)"; return t }
    try db.save(made)
    var people: [RLMember] = []
    for i in 0..<members {
        let m = RLMember()
        m.name = String(format: "M%03d", members - i)
        m.team = made[i % teams]
        m.mentor = people.first
        people.append(m)
        try db.save(m)
    }
}

@Suite("PostgreSQL relationship loading", .enabled(if: postgresURL != nil, "STRATA_POSTGRES_URL is not set (run under Scripts/with-postgres.sh)"))
struct PostgresRelationshipLoadingTests {
    @Test func prefetchOfIntegerKeysIsOneArrayStatementAndADanglingKeyIsKnownMissing() throws {
        try withSchema { db, open in
            try teamsAndMembers(db, teams: 5, members: 200)
            try db.execute("UPDATE rl_member SET team = 999 WHERE id = 7")
            try db.execute("UPDATE rl_member SET team = NULL WHERE id = 8")
            let (other, log) = try open()
            _ = try other.count(RLTeam.self); _ = try other.count(RLMember.self)   // first use (schema reads) before the count
            let (members, statements) = try log.during {
                try other.objects(RLMember.self, where: "ORDER BY id", prefetching: ["team"])
            }
            #expect(statements.count == 2, "\(statements)")
            #expect(statements.last?.contains("\"id\" = ANY($1)") == true, "\(statements)")
            let (teams, reads) = log.during { members.map(\.team) }
            #expect(reads.isEmpty, "\(reads)")   // every read: no statement
            #expect(teams.compactMap { $0 }.count == 198)
            #expect(Set(teams.compactMap { $0.map(ObjectIdentifier.init) }).count == 5)
            #expect(teams[0] === teams[5] && teams[0]?.name == "T0" && teams[4]?.name == "T4")
            #expect(teams[6] == nil && members[6].$team.key == .integer(999))
            #expect(teams[7] == nil && members[7].$team.key == .null)
            let (error, load) = log.during { () -> ModelError? in
                do { _ = try members[6].$team.load() } catch let error as ModelError { return error } catch {}
                return nil
            }
            #expect(error?.kind == .notFound && load.isEmpty, "\(load)")   // known missing: no statement
            // A row inserted by this handle with that key is found again (the mark holds until a write).
            try other.execute("INSERT INTO rl_team(id, name) VALUES (999, 'late')")
            #expect(members[6].team?.name == "late")
        }
    }

    @Test func prefetchReadsAgainTheLiveTargetsRawSQLMayHaveChanged() throws {
        try withSchema { db, open in
            try teamsAndMembers(db, teams: 3, members: 6)
            let (other, log) = try open()
            let teams = try other.objects(RLTeam.self, orderBy: .ascending(\.id))   // live, then raw SQL
            try other.execute("UPDATE rl_team SET name = 'renamed' WHERE id = 1; UPDATE rl_member SET team = NULL WHERE team = 3; DELETE FROM rl_team WHERE id = 3")
            try other.execute("UPDATE rl_member SET team = 3 WHERE id = 3")   // a key whose row is gone
            let members = try other.objects(RLMember.self, orderBy: .ascending(\.id))
            let (_, statements) = try log.during { try other.prefetch("team", of: members) }
            #expect(statements.count == 1 && statements[0].contains("= ANY($1)"), "\(statements)")
            #expect(members.map { $0.team?.name ?? "-" } == ["renamed", "T1", "-", "renamed", "T1", "-"])
            #expect(members[0].team === teams[0] && teams[0].name == "renamed")
            #expect(teams[2].isDeleted && members[2].$team.key == .integer(3))
        }
    }

    @Test func childrenAndAPathPrefetchOneStatementPerLevel() throws {
        try withSchema { db, open in
            try teamsAndMembers(db, teams: 3, members: 30)
            let (other, log) = try open()
            _ = try other.count(RLTeam.self); _ = try other.count(RLMember.self)
            let (teams, statements) = try log.during {
                try other.objects(RLTeam.self, where: "ORDER BY id", prefetching: [.to(\.$members, then: .to(\.$mentor))])
            }
            // Teams, then their members (keys as one array); the mentors are members loaded already: no statement.
            #expect(statements.count == 2, "\(statements)")
            #expect(statements.last?.contains("\"team\" = ANY($1)") == true, "\(statements)")
            let (names, reads) = log.during { teams.map { $0.members.map(\.name) } }
            #expect(reads.isEmpty, "\(reads)")
            #expect(names[0].count == 10 && names[0].first == "M003" && names[0].last == "M030")
            #expect(names[1].first == "M002" && names[2].first == "M001")
            let (mentors, mentorReads) = log.during { teams[1].members.map { $0.mentor?.name } }
            #expect(mentorReads.isEmpty && Set(mentors) == ["M030"], "\(mentorReads)")
            #expect(teams[0].members.allSatisfy { $0.team === teams[0] })
        }
    }

    @Test func textAndUUIDKeysPrefetchAsOneArrayEach() throws {
        try withSchema { db, open in
            let countries = [("FR", "France"), ("DE", "Deutschland"), ("it", "Italia")].map { code, name in
                let c = RLCountry(); c.code = code; c.name = name; return c
            }
            try db.save(countries)
            let devices = (0..<3).map { i in let d = RLDevice(); d.label = "D\(i)"; return d }
            try db.save(devices)
            for i in 0..<9 {
                let site = RLSite()
                site.country = countries[i % 3]
                site.device = devices[(i + 1) % 3]
                try db.save(site)
            }
            #expect(try db.value(String.self, "SELECT pg_typeof(device)::text FROM rl_site LIMIT 1") == "uuid")
            #expect(try db.value(String.self, "SELECT pg_typeof(country)::text FROM rl_site LIMIT 1") == "text")
            let (other, log) = try open()
            _ = try other.count(RLCountry.self); _ = try other.count(RLDevice.self)
            let sites = try other.objects(RLSite.self, orderBy: .ascending(\.id))
            let (_, statements) = try log.during {
                try other.prefetch(\.$country, of: sites)
                try other.prefetch(\.$device, of: sites)
            }
            #expect(statements.count == 2 && statements.allSatisfy { $0.contains("= ANY($1)") }, "\(statements)")
            let (read, reads) = log.during { sites.map { "\($0.country?.name ?? "-")/\($0.device?.label ?? "-")" } }
            #expect(reads.isEmpty, "\(reads)")
            #expect(read.prefix(4) == ["France/D1", "Deutschland/D2", "Italia/D0", "France/D1"])
            #expect(sites[0].$device.key == .text(devices[1].id.uuidString.lowercased()))
            #expect(sites[0].device === sites[3].device && sites[2].country === sites[5].country)
        }
    }

    @Test func theFirstFaultLoadsEveryLiveOwnersTargetInOneArrayStatement() throws {
        try withSchema { db, open in
            try teamsAndMembers(db, teams: 4, members: 40)
            let (other, log) = try open()
            _ = try other.count(RLTeam.self)
            let members = try other.objects(RLMember.self, orderBy: .ascending(\.id))
            let (first, statements) = log.during { members[0].team }
            #expect(first?.name == "T0")
            #expect(statements.count == 1 && statements[0].contains("= ANY($1)"), "\(statements)")
            let (all, reads) = log.during { members.map { $0.team?.name ?? "-" } }
            #expect(reads.isEmpty, "\(reads)")   // the batch loaded them all
            #expect(all.prefix(5) == ["T0", "T1", "T2", "T3", "T0"])
            #expect(Set(members.compactMap { $0.team.map(ObjectIdentifier.init) }).count == 4)
        }
    }

    @Test func siblingsLoadPrefetchAddAndRemoveThroughTheJoinTable() throws {
        try withSchema { db, open in
            try db.syncSchema(RLPost.self)
            try db.syncSchema(RLTag.self)
            try db.execute("""
                CREATE TABLE rl_post_tag (post_id bigint NOT NULL REFERENCES rl_post(id) ON DELETE CASCADE,
                                          tag_id bigint NOT NULL REFERENCES rl_tag(id) ON DELETE CASCADE,
                                          PRIMARY KEY (post_id, tag_id))
                """)
            let posts = (0..<4).map { i in let p = RLPost(); p.title = "P\(i)"; return p }
            let tags = ["swift", "sql", "apple"].map { n in let t = RLTag(); t.name = n; return t }
            try db.save(posts); try db.save(tags)
            try db.execute("INSERT INTO rl_post_tag VALUES (1, 1), (1, 2), (2, 2), (3, 1), (3, 2), (3, 3)")
            let (other, log) = try open()
            _ = try other.count(RLTag.self)
            let mine = try other.objects(RLPost.self, orderBy: .ascending(\.id))
            // One post: one statement; every post: one statement with the keys as one array.
            let (one, single) = log.during { mine[0].tags.map(\.name) }
            #expect(one == ["sql", "swift"] && single.count == 1, "\(single)")
            let (_, prefetch) = try log.during { try other.prefetch(\.$tags, of: Array(mine.dropFirst())) }
            #expect(prefetch.count == 1 && prefetch[0].contains("\"rl_post_tag\".\"post_id\" = ANY($1)"), "\(prefetch)")
            let (names, reads) = log.during { mine.map { $0.tags.map(\.name) } }
            #expect(reads.isEmpty, "\(reads)")
            #expect(names == [["sql", "swift"], ["sql"], ["apple", "sql", "swift"], []])
            #expect(mine[0].tags[1] === mine[2].tags[2])   // one instance per row

            // The other side's loaded array is dropped by a write to the join table; the writer's is kept.
            let apple = try #require(mine[2].tags.first)
            #expect(apple.posts.map(\.title) == ["P2"])
            try mine[0].$tags.add(apple)
            #expect(try other.column(Int.self, "SELECT tag_id FROM rl_post_tag WHERE post_id = 1 ORDER BY tag_id") == [1, 2, 3])
            #expect(apple.posts.map(\.title) == ["P0", "P2"])
            #expect(mine[0].tags.map(\.name) == ["apple", "sql", "swift"])
            try mine[0].$tags.add(apple)   // there already: nothing written
            #expect(try other.value(Int.self, "SELECT count(*) FROM rl_post_tag WHERE post_id = 1") == 3)
            try mine[2].$tags.remove(apple)
            #expect(try other.column(Int.self, "SELECT post_id FROM rl_post_tag WHERE tag_id = 3") == [1])
            #expect(mine[2].tags.map(\.name) == ["sql", "swift"])
            #expect(apple.posts.map(\.title) == ["P0"])
        }
    }

    @Test func aCompositeKeyOfReferencesIsFetchedByKeyAndItsReferencesPrefetch() throws {
        try withSchema { db, open in
            try db.execute("""
                CREATE TABLE rl_note (id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, title text NOT NULL DEFAULT '');
                CREATE TABLE rl_label (code text PRIMARY KEY);
                CREATE TABLE rl_notelabel (note_id bigint NOT NULL REFERENCES rl_note(id) ON DELETE CASCADE,
                                           label_id text NOT NULL REFERENCES rl_label(code),
                                           weight bigint NOT NULL DEFAULT 0, PRIMARY KEY (note_id, label_id));
                INSERT INTO rl_note(id, title) VALUES (1, 'one'), (2, 'two');
                INSERT INTO rl_label VALUES ('a'), ('b');
                INSERT INTO rl_notelabel VALUES (1, 'a', 5), (1, 'b', 6), (2, 'a', 7);
                """)
            let (other, log) = try open()
            _ = try other.count(RLNote.self); _ = try other.count(RLLabel.self)
            let link = try #require(try other.object(RLNoteLabel.self, forKey: CompositeKey(2, "a")))
            #expect(link.weight == 7 && link.$note.key == .integer(2) && link.$label.key == .text("a"))
            let links = try other.objects(RLNoteLabel.self, orderBy: .ascending(\.weight))
            #expect(links[2] === link)
            let (_, statements) = try log.during { try other.prefetch("note", of: links); try other.prefetch("label", of: links) }
            #expect(statements.count == 2 && statements.allSatisfy { $0.contains("= ANY($1)") }, "\(statements)")
            let (read, reads) = log.during { links.map { "\($0.note?.title ?? "-")/\($0.label?.code ?? "-")" } }
            #expect(read == ["one/a", "one/b", "two/a"] && reads.isEmpty, "\(reads)")

            // Deleting note 1 through Strata: the engine cascades to its links, and the live ones are deleted too.
            let note = try #require(links[0].note)
            let (_, delete) = try log.during { try other.delete(note) }
            #expect(delete.count == 2, "\(delete)")   // the DELETE, then the live links read again by key
            #expect(links.map(\.isDeleted) == [true, true, false])
            #expect(try other.object(RLNoteLabel.self, forKey: CompositeKey(1, "a")) == nil)
            #expect(try other.column(String.self, "SELECT note_id || '/' || label_id FROM rl_notelabel") == ["2/a"])
        }
    }

    @Test func cascadesAndSetNullReachLiveInstancesAndARollbackBringsThemBack() throws {
        try withSchema { db, open in
            try db.syncSchema(RLFile.self)
            #expect(try db.column(String.self, """
                SELECT confdeltype::text FROM pg_constraint WHERE conrelid = 'rl_file'::regclass AND contype = 'f' ORDER BY conname
                """).sorted() == ["c", "n"])
            let (other, _) = try open()
            let (work, archive) = (RLFolder(), RLFolder())
            work.name = "work"; archive.name = "archive"
            try other.save([work, archive])
            let files = (0..<3).map { i in let f = RLFile(); f.name = "F\(i)"; f.folder = i < 2 ? work : archive; f.reviewer = archive; return f }
            try other.save(files)

            // Rolled back: the deleted file comes back as it was.
            struct Undo: Error {}
            #expect(throws: Undo.self) {
                try other.transaction {
                    try other.delete(work)
                    #expect(files.map(\.isDeleted) == [true, true, false])
                    throw Undo()
                }
            }
            #expect(files.map(\.isDeleted) == [false, false, false])
            #expect(try other.value(Int.self, "SELECT count(*) FROM rl_file") == 3)

            try other.delete(work)
            #expect(files.map(\.isDeleted) == [true, true, false])
            try other.delete(archive)   // the last file goes with its folder
            #expect(files[2].isDeleted)
            #expect(try other.value(Int.self, "SELECT count(*) FROM rl_file") == 0)
        }
    }

    @Test func setNullEmptiesTheLiveReference() throws {
        try withSchema { _, open in
            let (other, log) = try open()
            let (work, reviewer) = (RLFolder(), RLFolder())
            work.name = "work"; reviewer.name = "reviews"
            try other.save([work, reviewer])
            let file = RLFile(); file.name = "F"; file.folder = work; file.reviewer = reviewer
            try other.save(file)
            let (_, delete) = try log.during { try other.delete(reviewer) }
            #expect(delete.count == 2, "\(delete)")
            #expect(!file.isDeleted && file.$reviewer.key == .null && file.reviewer == nil)
            #expect(file.folder === work)
            #expect(try other.rows("SELECT reviewer FROM rl_file")[0].values == [.null])
            file.name = "G"
            try other.save(file)   // no conflict: the instance holds the row the cascade left
            #expect(try other.value(String.self, "SELECT name FROM rl_file") == "G")
        }
    }
}
