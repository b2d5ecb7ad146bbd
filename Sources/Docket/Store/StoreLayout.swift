import Foundation

/// Where each item lives in a store (format 1).
///
///     .docket/format.json                  {"format": 3}
///     todos/<AB>/<UUID>.json               one TodoItem; <AB> = the id's first two hex digits
///     projects/<UUID>/project.json         one Project, without its tasks
///     projects/<UUID>/tasks/<UUID>.json    one ProjectTask, with its time slips
///     .docket/removed/<AB>/<UUID>.json     a tombstone
public enum StoreLayout {
    /// The folder of todos.
    public static let todos = "todos"
    /// The folder of projects.
    public static let projects = "projects"
    /// Docket's own folder.
    public static let docket = ".docket"
    /// The folder of tombstones.
    public static let removed = ".docket/removed"
    /// The file that names the store's format.
    public static let format = ".docket/format.json"

    /// The folders that hold the store's files.
    public static let folders = [todos, projects, docket]

    /// The shard folder of an id: its first two hex digits, upper case.
    static func shard(_ id: UUID) -> String {
        let byte = id.uuid.0
        return String(decoding: [hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 15)]], as: UTF8.self)
    }

    private static let hexDigits = Array("0123456789ABCDEF".utf8)

    /// An id as file names spell it: `uuidString`, upper case.
    /// NB: Foundation makes `uuidString` with `snprintf`; paths are made for
    /// every file of a store on every load, so the digits are written here.
    static func name(_ id: UUID) -> String {
        withUnsafeBytes(of: id.uuid) { bytes in
            String(unsafeUninitializedCapacity: 36) { out in
                var at = 0
                for (index, byte) in bytes.enumerated() {
                    if index == 4 || index == 6 || index == 8 || index == 10 {
                        out[at] = UInt8(ascii: "-")
                        at += 1
                    }
                    out[at] = hexDigits[Int(byte >> 4)]
                    out[at + 1] = hexDigits[Int(byte & 15)]
                    at += 2
                }
                return at
            }
        }
    }

    /// Writes a todo's file name (`<ID>.json`) with a closing NUL into `buffer`, which holds at least 42:
    /// for stat'ing 100,000 files by name without making a string of each.
    static func writeFileName(of id: UUID, into buffer: inout [CChar]) {
        precondition(buffer.count >= 42)
        withUnsafeBytes(of: id.uuid) { bytes in
            var at = 0
            for (index, byte) in bytes.enumerated() {
                if index == 4 || index == 6 || index == 8 || index == 10 {
                    buffer[at] = CChar(UInt8(ascii: "-"))
                    at += 1
                }
                buffer[at] = CChar(hexDigits[Int(byte >> 4)])
                buffer[at + 1] = CChar(hexDigits[Int(byte & 15)])
                at += 2
            }
            for byte in ".json".utf8 {
                buffer[at] = CChar(byte)
                at += 1
            }
            buffer[at] = 0
        }
    }

    /// The file of a todo.
    public static func todo(_ id: UUID) -> String { "\(todos)/\(shard(id))/\(name(id)).json" }
    /// The folder of a project and its tasks.
    public static func projectFolder(_ id: UUID) -> String { "\(projects)/\(name(id))" }
    /// The file of a project, without its tasks.
    public static func project(_ id: UUID) -> String { "\(projectFolder(id))/project.json" }
    /// The folder of a project's tasks.
    public static func tasksFolder(of project: UUID) -> String { "\(projectFolder(project))/tasks" }
    /// The file of a project's task.
    public static func task(_ id: UUID, in project: UUID) -> String { "\(tasksFolder(of: project))/\(name(id)).json" }
    /// The file of a removed item's tombstone.
    public static func tombstone(_ id: UUID) -> String { "\(removed)/\(shard(id))/\(name(id)).json" }

    /// What a store path holds.
    public enum Item: Hashable, Sendable {
        case todo(UUID)
        case project(UUID)
        case task(UUID, project: UUID)
        case tombstone(UUID)
        case format
        case other

        /// The id of the item, when the path holds one.
        public var id: UUID? {
            switch self {
            case let .todo(id), let .project(id), let .task(id, _), let .tombstone(id): id
            case .format, .other: nil
            }
        }

        /// The path of this item.
        public var path: String? {
            switch self {
            case let .todo(id): StoreLayout.todo(id)
            case let .project(id): StoreLayout.project(id)
            case let .task(id, project): StoreLayout.task(id, in: project)
            case let .tombstone(id): StoreLayout.tombstone(id)
            case .format: StoreLayout.format
            case .other: nil
            }
        }
    }

    /// What the file at a store path holds; `.other` for anything that is not
    /// exactly an item's path (ids in capitals, the right shard, `.json`), so an
    /// item has one path only and a look-alike name never stands for it.
    public static func item(at path: String) -> Item {
        let item = parse(path)
        guard item != .other, item.path == path else { return .other }
        return item
    }

    /// Whether a path lies in the store's folders but names no item: a file
    /// Docket refuses to commit or take in. Dot files (Docket's temporary files) are not counted.
    public static func isStray(_ path: String) -> Bool {
        isInStore(path) && item(at: path) == .other && !split(path).name.hasPrefix(".")
    }

    /// What a path would hold if it were canonical.
    /// NB: read from the path's bytes: a store of 100,000 items asks this of every path.
    private static func parse(_ path: String) -> Item {
        var path = path
        return path.withUTF8 { bytes in
            // The path's parts, up to five (a store path has at most four).
            var parts = (0..<0, 0..<0, 0..<0, 0..<0, 0..<0)
            var count = 0
            var start = 0
            for index in 0...bytes.count where index == bytes.count || bytes[index] == UInt8(ascii: "/") {
                let range = start..<index
                switch count {
                case 0: parts.0 = range
                case 1: parts.1 = range
                case 2: parts.2 = range
                case 3: parts.3 = range
                default: parts.4 = range
                }
                count += 1
                start = index + 1
                if count > 5 { return .other }
            }
            func part(_ range: Range<Int>) -> UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(rebasing: bytes[range]) }
            func equals(_ range: Range<Int>, _ text: StaticString) -> Bool {
                range.count == text.utf8CodeUnitCount
                    && memcmp(bytes.baseAddress! + range.lowerBound, text.utf8Start, range.count) == 0
            }
            func id(ofFile range: Range<Int>) -> UUID? {
                guard range.count == 41, equals(range.upperBound - 5..<range.upperBound, ".json") else { return nil }
                return UUID(hexBytes: part(range.lowerBound..<range.upperBound - 5))
            }
            switch count {
            case 3 where equals(parts.0, "todos"):
                return id(ofFile: parts.2).map(Item.todo) ?? .other
            case 3 where equals(parts.0, "projects") && equals(parts.2, "project.json"):
                return UUID(hexBytes: part(parts.1)).map(Item.project) ?? .other
            case 4 where equals(parts.0, "projects") && equals(parts.2, "tasks"):
                guard let project = UUID(hexBytes: part(parts.1)), let task = id(ofFile: parts.3) else { return .other }
                return .task(task, project: project)
            case 4 where equals(parts.0, ".docket") && equals(parts.1, "removed"):
                return id(ofFile: parts.3).map(Item.tombstone) ?? .other
            case 2 where equals(parts.0, ".docket") && equals(parts.1, "format.json"):
                return .format
            default:
                return .other
            }
        }
    }

    /// Whether a path lies in one of the store's folders.
    public static func isInStore(_ path: String) -> Bool {
        folders.contains { path == $0 || path.hasPrefix($0 + "/") }
    }
}
