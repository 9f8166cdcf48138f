#if canImport(Observation)
import Foundation
import Observation
import StrataTestSupport
import Testing
@testable import Strata

@Observable final class ObservedNote: Model, ObservableModel {
    static var observedKeyPaths: [PartialKeyPath<ObservedNote>] { [\.title, \.stars] }
    static let indices = [["title"]]
    var id: Int64 = 0
    var title = ""
    var stars = 0
    var createdAt: Date?
    required init() {}
}

/// `@Observable` without the notifications: it still maps like any model.
@Observable final class PlainObservable: Model {
    var id: Int64 = 0
    var name = ""
    @ObservationIgnored @Reference var note: ObservedNote?
    required init() {}
}

/// Counts `withObservationTracking` change callbacks for reads of `read`.
final class ChangeCounter: @unchecked Sendable {
    private let count = Locked(0)
    var value: Int { count.withLock { $0 } }
    func track(_ read: @escaping () -> Void) {
        withObservationTracking(read) { [self] in count.withLock { $0 += 1 } }
    }
}

@Suite struct ObservationTests {
    @Test func anObservableModelMapsItsPropertiesNotTheMacrosStorage() throws {
        let temp = try TemporaryDatabase()
        let plan = try temp.db.syncSchema(ObservedNote.self)
        #expect(plan.steps.first?.sql.contains("\"title\" TEXT") == true)
        #expect(try temp.db.rows("PRAGMA table_info(ObservedNote)").map { $0["name"] } == [.text("id"), .text("title"), .text("stars"), .text("createdAt")])
        let note = ObservedNote(); note.title = "first"; note.stars = 3
        try temp.db.save(note)
        let other = PlainObservable(); other.name = "x"; other.note = note
        try temp.db.save(other)
        try temp.reopen()
        let read = try #require(try temp.db.object(PlainObservable.self, forKey: 1))
        #expect(read.name == "x")
        #expect(read.note?.title == "first")
        #expect(read.note?.stars == 3)
    }

    @Test func rawSQLAndOtherConnectionsCommitsNotifyObservers() throws {
        let temp = try TemporaryDatabase()
        let note = ObservedNote(); note.title = "draft"
        try temp.db.save(note)

        let counter = ChangeCounter()
        counter.track { _ = note.title }
        try temp.db.execute("UPDATE ObservedNote SET stars = 5 WHERE id = 1")
        #expect(note.stars == 5)
        #expect(counter.value == 1, "a view reading title re-renders: the instance changed")

        counter.track { _ = note.stars }
        let other = try Database(path: temp.path)
        try other.execute("UPDATE ObservedNote SET title = 'final' WHERE id = 1")
        _ = try temp.db.objects(ObservedNote.self)   // the handle notices the commit (a model read checks)
        #expect(note.title == "final")
        #expect(counter.value == 2)

        counter.track { _ = note.title }
        try temp.db.execute("UPDATE ObservedNote SET title = 'final' WHERE id = 1")   // same value
        #expect(counter.value == 2, "no change, no notification")
        try temp.db.execute("DELETE FROM ObservedNote")
        #expect(note.isDeleted)
        #expect(counter.value == 3)
    }

    @Test func aRollbackNotifiesObservers() throws {
        let temp = try TemporaryDatabase()
        let note = ObservedNote(); note.title = "kept"
        try temp.db.save(note)
        let counter = ChangeCounter()
        struct Abort: Error {}
        #expect(throws: Abort.self) {
            try temp.db.transaction {
                note.title = "undone"   // the setter notifies by itself (not counted: not tracked yet)
                try temp.db.save(note)
                counter.track { _ = note.title }
                throw Abort()
            }
        }
        #expect(note.title == "kept")
        #expect(counter.value == 1)
    }
}
#endif
