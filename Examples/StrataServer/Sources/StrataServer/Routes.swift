import Foundation
import Hummingbird
import Strata

/// The routes; every database call is `try await pool.read/write`, so a request waiting for the writer
/// suspends instead of holding one of the server's threads.
func makeRouter(_ pool: DatabasePool) -> Router<BasicRequestContext> {
    let router = Router()
    router.get("/health") { _, _ in "ok" }

    router.get("/notes") { request, _ -> [NoteDTO] in
        let limit = min(request.uri.queryParameters.get("limit", as: Int.self) ?? 50, 500)
        return try await pool.read { db in
            try db.objects(Note.self, where: "ORDER BY id DESC LIMIT ?", limit).map(NoteDTO.init)
        }
    }

    router.get("/notes/:id") { _, context -> NoteDTO in
        let id = try context.parameters.require("id", as: Int64.self)
        guard let note = try await pool.read({ db in try db.object(Note.self, forKey: id).map(NoteDTO.init) }) else {
            throw HTTPError(.notFound, message: "no note \(id)")
        }
        return note
    }

    router.post("/notes") { request, context -> EditedResponse<NoteDTO> in
        let input = try await request.decode(as: NoteDTO.self, context: context)
        let saved = try await pool.write { db in
            let note = Note()
            note.title = input.title
            note.body = input.body
            try db.save(note)
            return NoteDTO(note)
        }
        return EditedResponse(status: .created, response: saved)
    }

    router.put("/notes/:id") { request, context -> NoteDTO in
        let id = try context.parameters.require("id", as: Int64.self)
        let input = try await request.decode(as: NoteDTO.self, context: context)
        guard let saved = try await pool.write({ db -> NoteDTO? in
            guard let note = try db.object(Note.self, forKey: id) else { return nil }
            note.title = input.title
            note.body = input.body
            try db.save(note)   // writes only the properties that changed
            return NoteDTO(note)
        }) else { throw HTTPError(.notFound, message: "no note \(id)") }
        return saved
    }

    router.delete("/notes/:id") { _, context -> HTTPResponse.Status in
        let id = try context.parameters.require("id", as: Int64.self)
        let deleted = try await pool.write { db -> Bool in
            guard let note = try db.object(Note.self, forKey: id) else { return false }
            try db.delete(note)
            return true
        }
        return deleted ? .noContent : .notFound
    }

    // A deliberately slow write (holds the write lock for `ms` milliseconds), for the load script.
    router.post("/slow-write") { request, _ -> HTTPResponse.Status in
        let milliseconds = min(request.uri.queryParameters.get("ms", as: Int.self) ?? 200, 2_000)
        try await pool.write { db in
            let note = Note()
            note.title = "slow"
            try db.save(note)
            Thread.sleep(forTimeInterval: Double(milliseconds) / 1_000)
        }
        return .created
    }
    return router
}
