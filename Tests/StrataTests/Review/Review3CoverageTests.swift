import Foundation
import StrataTestSupport
import Testing
@testable import Strata

private final class R3SEmp: Model {
    var id: Int64 = 0
    var name = ""
    @Reference var manager: R3SEmp?
    @Children(by: "manager", orderBy: "name") var reports: [R3SEmp]
    required init() {}
}
/// Plain-column children; the parent registers after the child.
private final class R3SKid: Model {
    var id: Int64 = 0
    var familyID: Int64 = 0
    required init() {}
}
private final class R3SFamily: Model {
    var id: Int64 = 0
    @Children(by: "familyID", orderBy: "id") var kids: [R3SKid]
    required init() {}
}

private final class R3SArtist: Model {
    var id: Int64 = 0
    @Children(by: "artist", orderBy: "id") var albums: [R3SAlbum]
    required init() {}
}
private final class R3SAlbum: Model {
    var id: Int64 = 0
    @Reference var artist: R3SArtist?
    required init() {}
}
private final class R3SAlbumRow: Model {
    static let tableName = "R3SAlbum"
    var id: Int64 = 0
    var artist: Int64? = nil
    required init() {}
}

@Suite struct Review3CoverageTests {
    @Test func childMappedTwice() throws {
        let db = try Database()
        let ada = R3SArtist(), bob = R3SArtist()
        try db.save([ada, bob])
        _ = try db.objects(R3SAlbumRow.self)
        #expect(ada.albums.isEmpty && bob.albums.isEmpty)
        let row = R3SAlbumRow(); row.artist = ada.id
        try db.save(row)
        #expect(ada.albums.map(\.id) == [row.id])
        row.artist = bob.id
        try db.save(row)
        #expect(ada.albums.isEmpty)
        #expect(bob.albums.map(\.id) == [row.id])
        // The row's R3SAlbum instance is held by bob's array now; move it back by the other mapping.
        row.artist = ada.id
        try db.save(row)
        #expect(bob.albums.isEmpty)
        #expect(ada.albums.map(\.id) == [row.id])
        // Freed R3SAlbum instance: drop the arrays' hold and move again.
        ada.$albums.invalidate(); bob.$albums.invalidate()
        #expect(bob.albums.isEmpty)
        row.artist = bob.id
        try db.save(row)
        #expect(bob.albums.map(\.id) == [row.id])
        _ = try db.delete(row)
        #expect(bob.albums.isEmpty)
    }

    @Test func selfReferencingMove() throws {
        let db = try Database()
        let boss = R3SEmp(); boss.name = "boss"
        try db.save(boss)
        let m1 = R3SEmp(); m1.name = "m1"; m1.manager = boss
        let m2 = R3SEmp(); m2.name = "m2"; m2.manager = boss
        try db.save([m1, m2])
        let w = R3SEmp(); w.name = "w"; w.manager = m1
        try db.save(w)
        #expect(m1.reports.map(\.name) == ["w"] && m2.reports.isEmpty && boss.reports.map(\.name) == ["m1", "m2"])
        w.manager = m2
        try db.save(w)
        #expect(m1.reports.isEmpty && m2.reports.map(\.name) == ["w"])
        w.manager = w
        try db.save(w)
        #expect(m2.reports.isEmpty && w.reports.map(\.name) == ["w"])
        try db.execute("UPDATE R3SEmp SET manager = ? WHERE id = ?", arguments: [boss.id, w.id])
        #expect(w.reports.isEmpty && boss.reports.map(\.name) == ["m1", "m2", "w"])
    }

    @Test func parentRegisteredAfterChild() throws {
        let db = try Database()
        let k = R3SKid(); try db.save(k)
        let f = R3SFamily(); let g = R3SFamily(); try db.save([f, g])
        k.familyID = f.id; try db.save(k)
        #expect(f.kids.map(\.id) == [k.id] && g.kids.isEmpty)
        k.familyID = g.id; try db.save(k)
        #expect(f.kids.isEmpty && g.kids.map(\.id) == [k.id])
    }
}
