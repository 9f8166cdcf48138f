import Foundation
import Hummingbird
import Strata

/// A note of the API, as Strata stores it: one live instance per row, inside a pool closure only.
final class Note: Model {
    static let indices = [["createdAt"]]
    var id: Int64 = 0
    var title = ""
    var body = ""
    var createdAt = Date()
    required init() {}
}

/// What crosses tasks and the wire: a Sendable value copied out of the live instance.
struct NoteDTO: ResponseCodable, Sendable {
    var id: Int64?
    var title: String
    var body: String
    var createdAt: Date?

    init(_ note: Note) {
        id = note.id
        title = note.title
        body = note.body
        createdAt = note.createdAt
    }
}
