import ArgumentParser
import Foundation
import Hummingbird
import Strata
import StrataPostgres

/// `strata-server`: a JSON API for notes on a Strata `DatabasePool`, listening on 127.0.0.1 only.
@main
struct StrataServer: AsyncParsableCommand {
    @Option(help: "The database file (created when missing), or a postgresql:// URL to run on PostgreSQL.")
    var database = "notes.sqlite"
    @Option(help: "The port on 127.0.0.1.")
    var port = 8080
    @Option(help: "Reader handles in the pool.")
    var readers = 4

    func run() async throws {
        // The same models and routes on either engine: a URL opens the pool on PostgreSQL.
        let onPostgres = database.hasPrefix("postgresql://") || database.hasPrefix("postgres://")
        let pool = onPostgres ? try DatabasePool(postgresURL: database, readers: readers) : try DatabasePool(path: database, readers: readers)
        try await pool.syncSchema(Note.self)
        let app = Application(router: makeRouter(pool), configuration: .init(address: .hostname("127.0.0.1", port: port)))
        print("strata-server: http://127.0.0.1:\(port) on \(pool.path)")
        try await app.runService()
        try await pool.close()
    }
}
