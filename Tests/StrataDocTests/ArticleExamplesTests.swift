import Foundation
import Strata
import Testing

@Suite struct ArticleExamplesTests {
    /// Every article of the catalog (the landing page has no Swift examples).
    static let articles: [String] = {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources/Strata/Strata.docc")
        let files = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return files.filter { $0.hasSuffix(".md") && $0 != "Strata.md" }.map { String($0.dropLast(3)) }.sorted()
    }()

    @Test func theExamplesRun() throws {
        try ArticleExamples.gettingStarted()
        try ArticleExamples.modelsAndSchemaEvolution()
        try ArticleExamples.rawSQL()
        let db = try Database()
        try db.syncSchema(Person.self)
        try ArticleExamples.observing(db)
        #expect(try db.count(Person.self) == 1)
        try ArticleExamples.limitations()
        let migrations = try Database()
        try MigrationExamples.migrate(migrations)
        try WritingSafelyExamples.run()
        #expect(try migrations.value(Int.self, "SELECT count(*) FROM strata_migrations") == 2)
    }

    /// The Typed Queries article's conditions, aggregates and prefetches return what the rows say.
    @Test func theTypedQueriesReturnWhatTheArticleSays() throws {
        typealias E = TypedQueryExamples
        let db = try Database()
        let paris = E.Site(); paris.city = "Paris"; try db.save(paris)
        let reds = E.Team(); reds.name = "Reds"; reds.site = paris; try db.save(reds)
        let blues = E.Team(); blues.name = "Blues"; try db.save(blues)
        for (name, goals, email) in [("Ada", 3, "ada@x"), ("Bob", 2, "bob@x"), ("Cy", 0, nil)] as [(String, Int, String?)] {
            let player = E.Player(); player.name = name; player.goals = goals; player.email = email
            player.team = name == "Cy" ? nil : reds
            try db.save(player)
        }
        // ofTeam 2, free 1, either 2, inParis 2, scoring 0, ads 1 ("Ada"), pages 0 (offset 40)
        #expect(try E.conditions(db, reds: reds, blues: blues) == 8)
        #expect(try db.objects(E.Player.self, where: .hasPrefix(\.name, "Ad") && \.email != nil).map(\.name) == ["Ada"])
        #expect(try E.aggregates(db, reds: reds) == false)   // "Ada" exists
        #expect(try db.sum(\E.Player.goals, where: \.team == reds) == 5)
        #expect(try db.average(\E.Player.goals, where: \.email != nil) == 2.5)
        #expect(try E.prefetching(db) == 5)
        #expect(reds.players.map(\.name) == ["Ada", "Bob"])
    }

    /// The Values and Stored Formats article's model stores each property as its comment says.
    @Test func theInvoiceIsStoredAsTheArticleSays() throws {
        let db = try Database()
        let invoice = FormatsExamples.Invoice()
        invoice.amount = Decimal(string: "19.99")!
        invoice.issuedAt = Date(timeIntervalSince1970: 1_600_000_000.25)
        invoice.tier = .pro
        invoice.tags = ["a", "b"]
        try db.save(invoice)
        let stored = try db.value(String.self, """
            SELECT quote(amount) || ' ' || quote(issuedAt) || ' ' || quote(tier) || ' ' || quote(tags) || ' ' || quote(rating)
            FROM Invoice
            """)
        #expect(stored == #"'19.99' 1600000000250.0 'pro' '["a","b"]' NULL"#)   // a created Date column is REAL
        let declared = try db.rows("SELECT type FROM pragma_table_info('Invoice') ORDER BY cid").map { try $0.decode("type", as: String.self) }
        #expect(declared == ["INTEGER", "TEXT", "REAL", "TEXT", "TEXT", "REAL"], "\(declared)")
    }

    /// Each Swift block of those articles appears, line for line (indentation aside), in ArticleExamples.swift.
    @Test(arguments: ArticleExamplesTests.articles)
    func everyArticleBlockIsCompiled(article: String) throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let text = try String(contentsOf: root.appendingPathComponent("Sources/Strata/Strata.docc/\(article).md"), encoding: .utf8)
        let compiled = try String(contentsOf: root.appendingPathComponent("Tests/StrataDocTests/ArticleExamples.swift"), encoding: .utf8)
        func lines(_ code: some StringProtocol) -> [String] {
            code.split(separator: "\n", omittingEmptySubsequences: true).map { $0.trimmingCharacters(in: .whitespaces) }
        }
        let compiledLines = lines(compiled).joined(separator: "\n")
        let blocks = text.components(separatedBy: "```swift\n").dropFirst().map { $0.components(separatedBy: "```").first ?? "" }
        #expect(!blocks.isEmpty || ["Performance", "Architecture"].contains(article), "\(article) has no Swift example")
        for block in blocks {
            #expect(compiledLines.contains(lines(block).joined(separator: "\n")), "not compiled: \(block)")
        }
    }
}
