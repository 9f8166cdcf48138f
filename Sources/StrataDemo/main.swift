import Foundation
import Strata

let folder = FileManager.default.temporaryDirectory.appendingPathComponent("strata-demo-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: folder) }
let path = folder.appendingPathComponent("demo.sqlite").path

print("Strata demo, SQLite \(Database.sqliteVersion), database at \(path)\n")
let db = try Database(path: path)
try db.execute("""
    CREATE TABLE note(id INTEGER PRIMARY KEY, title TEXT NOT NULL, created REAL NOT NULL,
                      score REAL, tags TEXT, token TEXT, attachment BLOB)
    """)
let now = Date()
try db.execute("INSERT INTO note(title, created, score, tags, token, attachment) VALUES (?, ?, ?, ?, ?, ?)",
               "Hello, Strata", now, 4.5, ["swift", "sqlite"], UUID(), Data([0xCA, 0xFE]))
try db.execute("INSERT INTO note(title, created, score, tags, token, attachment) VALUES (?, ?, ?, ?, ?, ?)",
               "Second note", now.addingTimeInterval(-86_400), Double?.none, [String](), UUID(), Data())
for row in try db.rows("SELECT * FROM note ORDER BY id") {
    let created: Date = try row.decode("created")
    let tags: [String] = try row.decode("tags")
    let id: Int = try row.decode("id")
    let title: String = try row.decode("title")
    let score: Double? = try row.decode("score")
    let token: UUID = try row.decode("token")
    let attachment: Data = try row.decode("attachment")
    print("note \(id): \(title)")
    print("  created \(created), score \(score.map { String($0) } ?? "none"), tags \(tags)")
    print("  token \(token), attachment \(attachment.count) bytes")
}
print("\n\(try db.value(Int.self, "SELECT count(*) FROM note") ?? 0) notes")
