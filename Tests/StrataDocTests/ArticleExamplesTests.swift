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
