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
        #expect(blocks.count >= 11, "README.md has \(blocks.count) Swift blocks")
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
        #expect(programs == 1, "the Getting started program carries its imports")
    }

    @Test func theGettingStartedProgramRuns() throws {
        let (db, note, found) = try ReadmeGettingStarted.gettingStarted()
        #expect(note.id == 1 && found.count == 1 && found[0] === note)
        #expect(try db.value(String.self, "SELECT quote(title) || ' ' || typeof(createdAt) FROM Note") == "'Hello' real")
    }

    @Test func theModelsExampleRuns() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        let ada = try ReadmeExamples.models(db)
        #expect(ada.employeeId == 1 && ada.department?.name == "Sales")
        #expect(try db.schemaPlan(for: ReadmeExamples.Employee.self).isEmpty)
        #expect(try db.rows("SELECT name FROM Department").map { try $0.decode("name", as: String.self) } == ["Sales"])
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

    /// Employees Ada (36), Bo (12), Cy (70, an email), Di (40, an email), Ed (19), keys 1 to 5.
    private func staff(_ db: Database) throws -> ReadmeExamples.Employee {
        for (name, age, email) in [("Ada", 36, nil), ("Bo", 12, nil), ("Cy", 70, "cy@example.com"),
                                   ("Di", 40, "di@example.com"), ("Ed", 19, nil)] as [(String, Int, String?)] {
            let employee = ReadmeExamples.Employee(); employee.name = name; employee.age = age; employee.email = email
            try db.save(employee)
        }
        return try #require(try db.object(ReadmeExamples.Employee.self, forKey: 1))
    }

    @Test func theQueriesAndRawSQLRun() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        let ada = try staff(db)
        let result = try ReadmeExamples.queries(db, ada: ada)
        #expect(result.adults.map(\.name) == ["Ada L.", "Cy", "Di", "Ed"])   // live: the raw UPDATE reached them
        #expect(result.picked.map(\.name) == ["Cy", "Ed"])
        #expect(result.some.map(\.name) == ["Cy", "Di"])
        #expect(ada.name == "Ada L." && result.adults[0] === ada)
        #expect(try db.value(String.self, "SELECT name FROM Employee WHERE employeeId = 1") == "Ada L.")
        #expect(result.message == "started" && result.count == 1)
        #expect(try db.value(String.self, "SELECT typeof(at) FROM log") == "real")
    }

    @Test func theWritesExampleRuns() throws {
        let temp = try TemporaryDatabase()
        let db = temp.db
        let ada = try staff(db)
        var updates: [String] = []
        let trace = db.traceStatements { sql in if sql.hasPrefix("UPDATE") { updates.append(sql) } }
        try ReadmeExamples.writes(db, ada: ada)
        trace.cancel()
        #expect(updates == ["UPDATE \"Employee\" SET \"email\" = ? WHERE \"employeeId\" = ?",
                            "UPDATE \"Employee\" SET \"age\" = ? WHERE \"employeeId\" = ?",
                            "UPDATE \"Employee\" SET \"age\" = ? WHERE \"employeeId\" = ?"])
        #expect(!ada.hasChanges && ada.age == 38)
        #expect(try db.value(String.self, "SELECT email || ' ' || age FROM Employee WHERE employeeId = 1") == "ada@example.com 38")
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
