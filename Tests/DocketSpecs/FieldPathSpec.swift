import DocketSpecSupport
import Foundation
import Nimble
import Quick

@testable import Docket

/// Where in an item a value is (`FieldPath`), as merge records and the undo journal name it: typed in the
/// code, and written as the text they have always held, so records and journals from before still read.
final class FieldPathSpec: QuickSpec {
    override class func spec() {
        let item = UUID(uuidString: "6F1C2B3A-0000-4000-8000-000000000001")!
        let note = UUID(uuidString: "6F1C2B3A-0000-4000-8000-000000000002")!
        let slip = UUID(uuidString: "6F1C2B3A-0000-4000-8000-000000000003")!

        describe("a field path") {
            it("is written as merge reports have always named fields, and read back") {
                let paths: [FieldPath] = ["text", .note(note), .slipStop(slip), .item]
                expect(paths.map(\.description))
                    == ["text", "notes[\(note.uuidString)]", "timeSlips[\(slip.uuidString)].stop", ""]
                expect(paths.map { FieldPath($0.description) }) == paths
            }
            it("takes text that names no note and no slip as a field's key") {
                expect(FieldPath("notes[not an id]")) == .field("notes[not an id]")
                expect(FieldPath("timeSlips[\(slip.uuidString)].start"))
                    == .field("timeSlips[\(slip.uuidString)].start")
                expect(FieldPath("tags[\(note.uuidString)]")) == .field("tags[\(note.uuidString)]")
            }
            it("reads an id written in lower case") {
                expect(FieldPath("notes[\(note.uuidString.lowercased())]")) == .note(note)
            }
        }

        describe("a merge record written by the previous docket") {
            // As a merge commit's record held its report before field paths were typed.
            let json = """
                {"farAhead":[],"items":[{"fields":[\
                {"field":"notes[\(note.uuidString)]","from":"ours","kept":"call Ann","lost":"call Bob","rule":"laterEdit"},\
                {"field":"text","from":"theirs","kept":"Buy oat milk","lost":"Buy milk","rule":"laterEdit"},\
                {"field":"timeSlips[\(slip.uuidString)].stop","from":"ours","kept":"2026-11-28T10:00:00.000Z",\
                "lost":"2026-11-28T11:00:00.000Z","rule":"laterEdit"}],\
                "id":"\(item.uuidString)","kind":"task","label":"Milk","projectID":"\(item.uuidString)",\
                "stoppedSlips":[]}]}
                """
            it("reads each lost value's place as a typed path") {
                let report = try DocketJSON.decode(MergeReport.self, from: Data(json.utf8))
                expect(report.lostValues.map { $0.field?.field }) == [.note(note), "text", .slipStop(slip)]
            }
            it("is written again in the same spelling") {
                let report = try DocketJSON.decode(MergeReport.self, from: Data(json.utf8))
                let again = try DocketJSON.decode(MergeReport.self, from: try DocketJSON.encode(report))
                expect(again) == report
                let written = String(decoding: try DocketJSON.encode(report), as: UTF8.self)
                expect(written).to(contain("\"notes[\(note.uuidString)]\"", "\"timeSlips[\(slip.uuidString)].stop\""))
            }
        }

        describe("an undo journal entry written by the previous docket") {
            it("reads what a merge's other side lost as typed paths, for undo to weigh") {
                let fresh = UndoEntry(
                    date: Date(timeIntervalSince1970: 1_795_000_000), action: "merge origin/main", isMerge: true,
                    before: AppState(), after: AppState(), by: ["Desk <desk@example.org>"])
                var page = try JSONSerialization.jsonObject(with: try DocketJSON.encode(fresh)) as! [String: Any]
                // As the journal held it before field paths were typed.
                page["lost"] = [
                    "\(item.uuidString) priority", "\(item.uuidString) notes[\(note.uuidString)]", item.uuidString,
                ]
                let entry = try DocketJSON.decode(
                    UndoEntry.self, from: try JSONSerialization.data(withJSONObject: page))
                expect(entry.laterMerge.lost)
                    == [ItemFieldPath(item, "priority"), ItemFieldPath(item, .note(note)), ItemFieldPath(item, .item)]
                let written = try JSONSerialization.jsonObject(with: try DocketJSON.encode(entry)) as! [String: Any]
                expect(written["lost"] as? [String]) == page["lost"] as? [String]
            }
            it("refuses a lost value that names no item") {
                expect(try DocketJSON.decode([ItemFieldPath].self, from: Data(#"["priority"]"#.utf8)))
                    .to(throwError())
            }
        }
    }
}
