import Foundation
import Strata
import StrataTestSupport
import Testing

@Suite struct ReadmeExamplesTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The README's Swift blocks that are not Swift for a test target, by first line, with the reason.
    static let notCompiledHere = [
        "// swift-tools-version:6.0": "a package manifest: Scripts/check-package-snippet.sh builds a package from it",
    ]

    /// The ```swift blocks of a Markdown text, each as its lines (indentation trimmed).
    static func swiftBlocks(_ text: String) -> [[String]] {
        text.components(separatedBy: "```swift\n").dropFirst().map { block in
            (block.components(separatedBy: "```").first ?? "").components(separatedBy: "\n")
                .map { $0.trimmingCharacters(in: .whitespaces) }
        }
    }

    /// Each Swift block of README.md appears in ReadmeExamples.swift: its imports are exactly the file's
    /// leading imports (so a block that uses `Date` says `import Foundation`), and each of its paragraphs
    /// (lines between blank lines: declarations, then the statements a function holds) appears there line
    /// for line, the paragraphs in the block's order.
    @Test func everyReadmeBlockIsCompiled() throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let compiled = try String(contentsOf: Self.root.appendingPathComponent("Tests/StrataDocTests/ReadmeExamples.swift"),
                                  encoding: .utf8)
        let compiledLines = compiled.components(separatedBy: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        let fileImports = Set(compiledLines.prefix { $0.isEmpty || $0.hasPrefix("import ") }.filter { !$0.isEmpty })
        let compiledText = compiledLines.filter { !$0.isEmpty }.joined(separator: "\n")

        let blocks = Self.swiftBlocks(readme)
        #expect(blocks.count >= 17, "README.md has \(blocks.count) Swift blocks")
        var exempted: [String] = []
        var programs = 0
        for block in blocks {
            let first = block.first { !$0.isEmpty } ?? ""
            if Self.notCompiledHere[first] != nil { exempted.append(first); continue }
            let imports = block.filter { $0.hasPrefix("import ") }
            if !imports.isEmpty {
                programs += 1
                #expect(Set(imports) == fileImports, "imports \(imports) differ from ReadmeExamples.swift's \(fileImports.sorted())")
            }
            var paragraphs: [[String]] = [[]]
            for line in block where !line.hasPrefix("import ") {
                if line.isEmpty { paragraphs.append([]) } else { paragraphs[paragraphs.count - 1].append(line) }
            }
            var from = compiledText.startIndex
            for paragraph in paragraphs where !paragraph.isEmpty {
                let text = paragraph.joined(separator: "\n")
                guard let found = compiledText.range(of: text, range: from..<compiledText.endIndex) else {
                    Issue.record("not compiled (or out of order): \(text)\n-- in the block starting: \(first)")
                    break
                }
                from = found.upperBound
            }
        }
        #expect(exempted.sorted() == Self.notCompiledHere.keys.sorted(), "each exemption names exactly one README block")
        #expect(programs == 2, "the Models and Raw SQL programs carry their imports")
    }

    @Test func theModelsProgramRuns() throws {
        let (db, ada) = try ReadmeExamples.models()
        #expect(ada.isDeleted && ada.name == "Ada L.")
        #expect(try db.rows("SELECT name FROM Department").map { try $0.decode("name", as: String.self) } == ["Sales"])
        #expect(try db.value(Int.self, "SELECT count(*) FROM Employee") == 0)
        let columns = try db.rows("SELECT name FROM pragma_table_info('Employee') ORDER BY cid").map { try $0.decode("name", as: String.self) }
        #expect(columns == ["employeeId", "name", "dateOfBirth", "age", "email", "department"])
    }

    @Test func theOptInModelRenamesTableAndColumn() throws {
        let temp = try TemporaryDatabase()
        try temp.db.execute("CREATE TABLE Person(id INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT '', age INTEGER NOT NULL DEFAULT 0)")
        try temp.db.execute("INSERT INTO Person(name, age) VALUES ('Ada', 36)")
        let ada = try #require(try temp.db.object(ReadmeExamples.Person.self, forKey: 1))
        #expect(ada.fullName == "Ada" && ada.age == 36)
        #expect(try temp.db.value(String.self, "SELECT fullName FROM people WHERE id = 1") == "Ada")
        #expect(try temp.db.value(Int.self, "SELECT count(*) FROM sqlite_master WHERE name = 'Person'") == 0)
    }

    @Test func theWritesAndCounterExamplesRun() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        let sales = ReadmeExamples.Department(); sales.name = "Sales"
        try db.save(sales)
        let ada = ReadmeExamples.Employee(); ada.name = "Ada"; ada.age = 36; ada.department = sales
        try db.save(ada)
        let same = try ReadmeExamples.writes(db)
        #expect(same === ada && !same.hasChanges)
        #expect(try db.value(String.self, "SELECT name FROM Employee WHERE employeeId = 1") == "Ada L.")

        let counter = ReadmeExamples.Counter()
        try db.save(counter)
        try ReadmeExamples.counters(db, counter: counter)
        #expect(counter.value == 2)
        #expect(try db.value(Int.self, "SELECT value FROM Counter WHERE id = ?", counter.id) == 2)
    }

    @Test func theRawSQLProgramAndQueriesRun() throws {
        let (notes, title, count) = try ReadmeExamples.rawSQL()
        #expect(title == "Hello" && count == 1)
        #expect(try notes.value(String.self, "SELECT title FROM note WHERE id = 1") == "Hi")
        #expect(try notes.value(String.self, "SELECT typeof(created) FROM note") == "real")
        try ReadmeExamples.errors(notes)                       // the duplicate key is caught, nothing written
        #expect(try notes.value(Int.self, "SELECT count(*) FROM note") == 1)

        let temp = try TemporaryDatabase()
        let db = temp.db
        try db.execute("CREATE TABLE post(id INTEGER PRIMARY KEY, tags TEXT)")
        try db.execute("INSERT INTO post(id) VALUES (1)")
        for (name, age, email) in [("Ada", 36, "ada@example.com"), ("Bo", 12, nil), ("Cy", 70, "cy@example.com"),
                                   ("Di", 40, nil), ("Ed", 19, "ed@example.com")] as [(String, Int, String?)] {
            let employee = ReadmeExamples.Employee(); employee.name = name; employee.age = age; employee.email = email
            try db.save(employee)
        }
        let (picked, adults) = try ReadmeExamples.inLists(db)
        #expect(picked.map(\.name) == ["Cy", "Ed"] && adults == 4)
        #expect(try db.value(String.self, "SELECT tags FROM post WHERE id = 1") == #"["swift","sqlite"]"#)
        let keyPaths = try ReadmeExamples.keyPaths(db)
        #expect(keyPaths.adults.map(\.name) == ["Ada", "Cy", "Ed"])
        #expect(keyPaths.some.map(\.name) == ["Cy", "Ed"] && keyPaths.old == 1)
    }

    @Test func theMappingExamplesRun() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        try db.execute(#"CREATE TABLE "shop_supplier" ("id" integer NOT NULL PRIMARY KEY AUTOINCREMENT)"#)
        try db.execute(#"""
            CREATE TABLE "shop_product" ("id" integer NOT NULL PRIMARY KEY AUTOINCREMENT,
              "title" varchar(100) NOT NULL, "price" decimal NOT NULL, "created_at" datetime NOT NULL,
              "supplier_id" integer NOT NULL REFERENCES "shop_supplier" ("id"), "notes" text NOT NULL)
            """#)
        #expect(try ReadmeMapping.product(db))
        #expect(try db.value(Int.self, "SELECT count(*) FROM pragma_table_info('shop_product')") == 6)

        try db.execute("""
            CREATE TABLE post(id INTEGER PRIMARY KEY, title TEXT NOT NULL, status TEXT NOT NULL DEFAULT 'draft',
                              created TEXT NOT NULL DEFAULT (CURRENT_TIMESTAMP))
            """)
        let post = try ReadmeMapping.schemaDefaults(db)
        #expect(post.status == "draft" && post.created.timeIntervalSince1970 > 1_700_000_000)
        #expect(try db.value(String.self, "SELECT status FROM post WHERE id = ?", post.id) == "draft")
    }

    @Test func theRelationshipExamplesRun() throws {
        typealias R = ReadmeRelationships
        let temp = try TemporaryDatabase()
        let db = temp.db
        let sales = R.Department(); sales.name = "Sales"
        let support = R.Department(); support.name = "Support"
        try db.save([sales, support])
        for (name, department) in [("Bo", sales), ("Ada", sales), ("Cy", support)] {
            let employee = R.Employee(); employee.name = name; employee.department = department
            try db.save(employee)
        }
        let teams = try R.children(db, sales: sales)
        #expect(teams.map { $0.employees.map(\.name) } == [["Ada", "Bo"], ["Cy"]])

        try db.execute("CREATE TABLE blog_post_tags(id INTEGER PRIMARY KEY, post_id INTEGER, tag_id INTEGER)")
        let post = R.Post(), other = R.Post()
        try db.save([post, other])
        let swift = R.Tag(), orm = R.Tag()
        swift.name = "swift"; orm.name = "orm"
        try db.save([swift, orm])
        try db.execute("INSERT INTO blog_post_tags(post_id, tag_id) VALUES (?, ?)", post.id, orm.id)
        try R.siblings(db, post: post, posts: [post, other], swift: swift, orm: orm)
        #expect(post.tags.map(\.name) == ["swift"] && other.tags.isEmpty)
        #expect(try db.value(Int64.self, "SELECT tag_id FROM blog_post_tags WHERE post_id = ?", post.id) == swift.id)

        let artist = R.Artist()
        try db.save(artist)
        let album = R.Album(); album.artist = artist; album.producer = artist
        try db.save(album)
        try db.delete(artist)
        #expect(album.isDeleted)
        #expect(try db.value(Int.self, "SELECT count(*) FROM Album") == 0)
    }

    @Test func theMigrationsExampleRuns() throws {
        let temp = try TemporaryDatabase()
        let folder = temp.folder.appendingPathComponent("migrations")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try "CREATE INDEX person_name ON person(name);".write(to: folder.appendingPathComponent("0003_index.sql"),
                                                                atomically: true, encoding: .utf8)
        try ReadmeExamples.migrate(temp.db, migrationsFolder: folder)
        #expect(try temp.db.value(Int.self, "SELECT count(*) FROM strata_migrations") == 3)
        #expect(try temp.db.value(Int.self, "PRAGMA user_version") == 3)
        let indices = try temp.db.rows("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'person' ORDER BY name")
            .map { try $0.decode("name", as: String.self) }
        #expect(indices == ["person_lastName", "person_name"])
    }
}
