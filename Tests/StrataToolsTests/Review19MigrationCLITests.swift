import Foundation
import Strata
import StrataTestSupport
import Testing

// Issue 36, point 8: `strata plan --migrations` on a database that also records the app's Swift migrations
// says how to proceed with a flag (--allow-unknown), not with an API property the command line cannot set.
@Suite struct Review19MigrationCLITests {
    @Test func planOnADatabaseWithSwiftMigrationsNamesTheFlag() throws {
        let temp = try TemporaryDatabase()
        var app = Migrator()
        app.register("swift-seed") { db in try db.execute("CREATE TABLE r19c_seed (id INTEGER PRIMARY KEY)") }
        try app.migrate(temp.db)
        try temp.db.close()
        let name = URL(fileURLWithPath: temp.path).lastPathComponent
        let folder = temp.folder.appendingPathComponent("migrations")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try "CREATE TABLE r19c_t (id INTEGER PRIMARY KEY)".write(to: folder.appendingPathComponent("1_create.sql"), atomically: true, encoding: .utf8)

        for command in ["plan", "migrate"] {
            let refused = try strata([command, name, "--migrations", "migrations"], in: temp.folder)
            #expect(refused.status == 1)
            #expect(refused.error.contains("the database records a Swift migration (no checksum recorded) \"swift-seed\" in namespace \"main\""), "\(refused.error)")
            #expect(refused.error.contains("add --allow-unknown"), "\(refused.error)")
            #expect(!refused.error.contains("allowsUnknownMigrations"), "\(refused.error)")
        }
        let plan = try strata(["plan", name, "--migrations", "migrations", "--allow-unknown"], in: temp.folder)
        #expect(plan.status == 0, "\(plan.error)")
        #expect(plan.output == "-- 1_create\nCREATE TABLE r19c_t (id INTEGER PRIMARY KEY)\n")
        let run = try strata(["migrate", name, "--migrations", "migrations", "--allow-unknown"], in: temp.folder)
        #expect(run.status == 0, "\(run.error)")
        #expect(run.output.contains("applied 1_create"))
    }
}
