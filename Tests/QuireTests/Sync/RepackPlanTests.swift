import Testing
@testable import QuireSync

/// Which packs a repack empties, decided without a server.
@Suite struct RepackPlanTests {
    private typealias Live = [String: (id: String, location: BlobLocation)]

    private func at(_ pack: String, _ offset: Int64, _ length: Int64, generation: Int = 0) -> BlobLocation {
        BlobLocation(extents: [.init(pack: pack, offset: offset, length: length)], generation: generation)
    }

    @Test func aPackLessThanHalfLiveIsRepackedAndOneHalfLiveOrMoreIsKept() {
        let live: Live = ["x": ("rx", at("packs/d/1", 0, 100)), "y": ("ry", at("packs/d/2", 0, 500))]
        let plan = RepackPlan(live: live, sizes: [("packs/d/1", 1000), ("packs/d/2", 1000)], held: { _ in true }, budget: 10)
        #expect(plan.packs == ["packs/d/1"])
        #expect(plan.moving == ["x": .init(remote: "rx", location: at("packs/d/1", 0, 100))])
    }

    @Test func aPackWithNothingLiveIsLeftForCollection() {
        let live: Live = ["x": ("rx", at("packs/d/1", 0, 100))]
        let plan = RepackPlan(live: live, sizes: [("packs/d/1", 1000), ("packs/d/9", 1000)], held: { _ in true }, budget: 10)
        #expect(plan.packs == ["packs/d/1"])
    }

    @Test func aPackWithAnAttachmentThisStoreLacksIsLeftAlone() {
        let live: Live = ["x": ("rx", at("packs/d/1", 0, 100)), "y": ("ry", at("packs/d/1", 100, 100)),
                          "z": ("rz", at("packs/d/2", 0, 10))]
        let plan = RepackPlan(live: live, sizes: [("packs/d/1", 1000), ("packs/d/2", 1000)], held: { $0 != "y" }, budget: 10)
        #expect(plan.packs == ["packs/d/2"])
        #expect(Set(plan.moving.keys) == ["z"])
    }

    @Test func theAnnouncementStaysWithinItsBudget() {
        var live: Live = [:]
        for i in 0..<3 { live["a\(i)"] = ("ra\(i)", at("packs/d/1", Int64(i) * 10, 10)) }
        for i in 0..<2 { live["b\(i)"] = ("rb\(i)", at("packs/d/2", Int64(i) * 10, 10)) }
        let plan = RepackPlan(live: live, sizes: [("packs/d/1", 1000), ("packs/d/2", 1000)], held: { _ in true }, budget: 4)
        // The first pack's three fit; the second's two would make five.
        #expect(plan.packs == ["packs/d/1"])
        #expect(plan.moving.count == 3)
        #expect(RepackPlan(live: live, sizes: [("packs/d/1", 1000), ("packs/d/2", 1000)], held: { _ in true }, budget: 5).packs.count == 2)
    }

    @Test func anAttachmentInTwoPacksCountsTheBytesInEachAndMovesOnce() {
        let split = BlobLocation(extents: [.init(pack: "packs/d/1", offset: 900, length: 100),
                                           .init(pack: "packs/d/2", offset: 0, length: 100)], generation: 2)
        let live: Live = ["s": ("rs", split)]
        let plan = RepackPlan(live: live, sizes: [("packs/d/1", 1000), ("packs/d/2", 1000)], held: { _ in true }, budget: 1)
        #expect(plan.packs == ["packs/d/1", "packs/d/2"])
        #expect(plan.moving == ["s": .init(remote: "rs", location: split)])
    }

    @Test func theBudgetFollowsTheServersBodyLimit() {
        #expect(RepackPlan.budget(bodyLimit: nil) == 4000)
        #expect(RepackPlan.budget(bodyLimit: 1 << 20) == (1 << 20) * 3 / 4 / 400)
        #expect(RepackPlan.budget(bodyLimit: 1000) == 16)
    }
}
