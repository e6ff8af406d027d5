// The binary store's file format, read and written byte by byte. Version 1:
//
//   magic        the 8 bytes "OGBSTORE"
//   version      varint (1)
//   UUID         string
//   next number  varint: the number the next new object takes
//   metadata     bytes: a binary property list of the metadata dictionary
//   model        bytes: the XML of the model the file was written with (for migration), or none
//   entities     varint count, then each: its name (string), its stored properties (varint
//                count, then each: name as a string and kind as one byte: 0 attribute,
//                1 to-one, 2 to-many)
//   objects      varint count, then each: its entity's index in the table above (varint), its
//                number (varint), and a value per property of its entity's table entry
//
// A value is a tag byte and what it tags: 0 nil; 1 an integer (zigzag varint); 2 a double (its
// eight bytes, little-endian); 3 text (varint length, UTF-8); 4 bytes (varint length, bytes);
// 5 one object (its number); 6 objects (varint count, numbers). Attribute values take the forms
// the SQLite store gives them (dates as seconds since 2001, decimals as exact text, UUIDs as 16
// bytes, transformables through their transformer), so one coding serves both stores.
// Varints are unsigned LEB128.
import Foundation

enum BinaryStoreFormat {
    static let magic = Data("OGBSTORE".utf8)
    static let version: UInt64 = 1

    /// What a property is, in the file's entity table.
    enum PropertyKind: UInt8 {
        case attribute = 0, toOne = 1, toMany = 2
    }

    /// A value's tag.
    enum Tag: UInt8 {
        case null = 0, integer = 1, double = 2, text = 3, bytes = 4, object = 5, objects = 6
    }

    /// A value as the file holds it: an attribute's stored form, or object numbers.
    enum Value {
        case stored(SQLiteValue)
        case object(Int64)
        case objects([Int64])
    }

    /// Where the file is not what the format says: the byte offset and what is wrong there.
    struct ReadError: Error {
        var offset: Int
        var message: String
    }
}

/// Appends the format's pieces to bytes.
struct BinaryWriter {
    private(set) var data = Data()

    init() {
        data.reserveCapacity(4096)
    }

    mutating func raw(_ bytes: Data) {
        data.append(bytes)
    }

    mutating func byte(_ byte: UInt8) {
        data.append(byte)
    }

    mutating func varint(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            data.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        data.append(UInt8(value))
    }

    mutating func count(_ count: Int) {
        varint(UInt64(count))
    }

    /// A signed number, zigzag-coded (small magnitudes take few bytes either side of zero).
    mutating func signed(_ value: Int64) {
        varint(UInt64(bitPattern: (value << 1) ^ (value >> 63)))
    }

    mutating func string(_ string: String) {
        var string = string
        string.withUTF8 { utf8 in
            count(utf8.count)
            data.append(utf8.baseAddress ?? UnsafePointer(bitPattern: 1)!, count: utf8.count)
        }
    }

    mutating func bytes(_ bytes: Data) {
        count(bytes.count)
        data.append(bytes)
    }

    mutating func value(_ value: BinaryStoreFormat.Value) {
        switch value {
        case .stored(.null): byte(BinaryStoreFormat.Tag.null.rawValue)
        case .stored(.integer(let integer)):
            byte(BinaryStoreFormat.Tag.integer.rawValue)
            signed(integer)
        case .stored(.double(let double)):
            byte(BinaryStoreFormat.Tag.double.rawValue)
            withUnsafeBytes(of: double.bitPattern.littleEndian) { data.append(contentsOf: $0) }
        case .stored(.text(let text)):
            byte(BinaryStoreFormat.Tag.text.rawValue)
            string(text)
        case .stored(.blob(let blob)):
            byte(BinaryStoreFormat.Tag.bytes.rawValue)
            bytes(blob)
        case .object(let number):
            byte(BinaryStoreFormat.Tag.object.rawValue)
            signed(number)
        case .objects(let numbers):
            byte(BinaryStoreFormat.Tag.objects.rawValue)
            count(numbers.count)
            for number in numbers { signed(number) }
        }
    }
}

/// Reads the format's pieces from bytes, failing with the offset of what it cannot read.
struct BinaryReader {
    private let bytes: [UInt8]
    private(set) var offset = 0

    init(_ data: Data) {
        bytes = [UInt8](data)
    }

    var isAtEnd: Bool { offset == bytes.count }

    func failure(_ message: String, at offset: Int? = nil) -> BinaryStoreFormat.ReadError {
        BinaryStoreFormat.ReadError(offset: offset ?? self.offset, message: message)
    }

    private mutating func take(_ count: Int, _ what: String) throws(BinaryStoreFormat.ReadError) -> ArraySlice<UInt8> {
        guard count >= 0, bytes.count - offset >= count else {
            throw failure("the file ends inside \(what) (\(count) bytes wanted, \(bytes.count - offset) left)")
        }
        defer { offset += count }
        return bytes[offset..<offset + count]
    }

    mutating func raw(_ count: Int, _ what: String) throws(BinaryStoreFormat.ReadError) -> Data {
        Data(try take(count, what))
    }

    mutating func byte(_ what: String) throws(BinaryStoreFormat.ReadError) -> UInt8 {
        try take(1, what).first!
    }

    mutating func varint(_ what: String) throws(BinaryStoreFormat.ReadError) -> UInt64 {
        let start = offset
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let byte = try byte(what)
            guard shift < 64, shift < 63 || byte <= 1 else { throw failure("\(what) is a number too large", at: start) }
            value |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { return value }
            shift += 7
        }
    }

    /// A count or length, which must fit in what is left of the file (each counted thing takes
    /// at least a byte).
    mutating func count(_ what: String) throws(BinaryStoreFormat.ReadError) -> Int {
        let start = offset
        let value = try varint(what)
        guard value <= UInt64(bytes.count - offset) else {
            throw failure("\(what) is \(value), more than the \(bytes.count - offset) bytes left", at: start)
        }
        return Int(value)
    }

    mutating func signed(_ what: String) throws(BinaryStoreFormat.ReadError) -> Int64 {
        let value = try varint(what)
        return Int64(bitPattern: value >> 1) ^ -Int64(bitPattern: value & 1)
    }

    mutating func string(_ what: String) throws(BinaryStoreFormat.ReadError) -> String {
        let start = offset
        let length = try count("the length of \(what)")
        let utf8 = try take(length, what)
        guard let string = String(validating: utf8, as: UTF8.self) else { throw failure("\(what) is not UTF-8 text", at: start) }
        return string
    }

    mutating func bytes(_ what: String) throws(BinaryStoreFormat.ReadError) -> Data {
        Data(try take(try count("the length of \(what)"), what))
    }

    /// One entity of the file's entity table: its name and stored properties, each with the
    /// offset it was read at (for errors).
    struct TableEntry {
        var name: String
        var offset: Int
        var properties: [(name: String, kind: BinaryStoreFormat.PropertyKind, offset: Int)]
    }

    /// The file's entity table.
    mutating func entityTable() throws(BinaryStoreFormat.ReadError) -> [TableEntry] {
        var table: [TableEntry] = []
        for _ in 0..<(try count("the number of entities")) {
            var entry = TableEntry(name: "", offset: offset, properties: [])
            entry.name = try string("an entity's name")
            for _ in 0..<(try count("the number of \(entry.name)'s properties")) {
                let propertyOffset = offset
                let propertyName = try string("a property name of \(entry.name)")
                let kindByte = try byte("the kind of \(entry.name).\(propertyName)")
                guard let kind = BinaryStoreFormat.PropertyKind(rawValue: kindByte) else {
                    throw failure("\(entry.name).\(propertyName) has the kind \(kindByte), which is no property kind", at: propertyOffset)
                }
                entry.properties.append((propertyName, kind, propertyOffset))
            }
            table.append(entry)
        }
        return table
    }

    mutating func value(_ what: String) throws(BinaryStoreFormat.ReadError) -> BinaryStoreFormat.Value {
        let start = offset
        let tagByte = try byte(what)
        guard let tag = BinaryStoreFormat.Tag(rawValue: tagByte) else {
            throw failure("\(what) has the tag \(tagByte), which is no value's", at: start)
        }
        switch tag {
        case .null: return .stored(.null)
        case .integer: return .stored(.integer(try signed(what)))
        case .double:
            let eight = try take(8, what)
            let bits = eight.reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            return .stored(.double(Double(bitPattern: bits)))
        case .text: return .stored(.text(try string(what)))
        case .bytes: return .stored(.blob(try bytes(what)))
        case .object: return .object(try signed(what))
        case .objects:
            let count = try count("the number of objects of \(what)")
            var numbers: [Int64] = []
            numbers.reserveCapacity(count)
            for _ in 0..<count { numbers.append(try signed(what)) }
            return .objects(numbers)
        }
    }
}
