import Foundation

/// Numbers, converted from the text they were written as, exactly: an integer that does not fit
/// the type asked for is `nil`, never wrapped or rounded; a `Double` or `Float` is the one nearest
/// the written value (correctly rounded), `nil` beyond the type's range.
extension JSONTree {
    /// The number node's text.
    func numberText(_ node: Node) -> String {
        String(decoding: buffer(of: node), as: UTF8.self)
    }

    /// The number node's value as an integer of type `T`, or `nil` if it is not an integer (such
    /// as `1.5`) or is out of `T`'s range. `1e2` and `100.0` are the integer 100.
    @inline(__always)
    func integer<T: FixedWidthInteger>(_ node: Node, as type: T.Type) -> T? {
        let text = buffer(of: node)
        let negative = text[0] == UInt8(ascii: "-")
        let magnitude: UInt64
        if node.isInteger {
            guard let value = Self.magnitude(digits: UnsafeBufferPointer(rebasing: text[(negative ? 1 : 0)...])) else {
                return nil
            }
            magnitude = value
        } else {
            guard let value = Self.integralMagnitude(of: text, negative: negative) else { return nil }
            magnitude = value
        }
        if negative {
            guard T.isSigned else { return magnitude == 0 ? 0 : nil }
            guard magnitude <= UInt64(1) << 63 else { return nil }
            let value = magnitude == UInt64(1) << 63 ? Int64.min : -Int64(magnitude)
            return T(exactly: value)
        }
        return T(exactly: magnitude)
    }

    /// The value of a run of decimal digits, or `nil` if it is more than `UInt64.max`.
    @inline(__always)
    private static func magnitude(digits: UnsafeBufferPointer<UInt8>) -> UInt64? {
        // 19 digits always fit.
        if digits.count <= 19 {
            var value: UInt64 = 0
            for digit in digits { value = value &* 10 &+ UInt64(digit &- UInt8(ascii: "0")) }
            return value
        }
        var value: UInt64 = 0
        for digit in digits {
            let (times10, overflow) = value.multipliedReportingOverflow(by: 10)
            let (sum, carry) = times10.addingReportingOverflow(UInt64(digit &- UInt8(ascii: "0")))
            guard !overflow, !carry else { return nil }
            value = sum
        }
        return value
    }

    /// The magnitude of a number written with a fraction or an exponent, if it is an integer
    /// within `UInt64`: its significant digits, shifted by the exponent, with no digit left after
    /// the decimal point but zeros.
    private static func integralMagnitude(of text: UnsafeBufferPointer<UInt8>, negative: Bool) -> UInt64? {
        var digits: [UInt8] = []
        var fractionDigits = 0
        var index = negative ? 1 : 0
        var inFraction = false
        while index < text.count {
            let byte = text[index]
            if byte == UInt8(ascii: ".") {
                inFraction = true
            } else if byte | 0x20 == UInt8(ascii: "e") {
                break
            } else {
                if !(digits.isEmpty && byte == UInt8(ascii: "0")) { digits.append(byte) }
                if inFraction { fractionDigits += 1 }
            }
            index += 1
        }
        var exponent = 0
        if index < text.count {
            index += 1
            var exponentNegative = false
            if text[index] == UInt8(ascii: "-") || text[index] == UInt8(ascii: "+") {
                exponentNegative = text[index] == UInt8(ascii: "-")
                index += 1
            }
            while index < text.count {
                // Saturate: anything past a million digits is out of range or zero anyway.
                exponent = min(exponent * 10 + Int(text[index] &- UInt8(ascii: "0")), 1_000_000)
                index += 1
            }
            if exponentNegative { exponent = -exponent }
        }
        guard !digits.isEmpty else { return 0 }
        var shift = exponent - fractionDigits
        while shift < 0, digits.last == UInt8(ascii: "0") {
            digits.removeLast()
            shift += 1
        }
        guard shift >= 0, digits.count + shift <= 20 else { return nil }
        digits += repeatElement(UInt8(ascii: "0"), count: shift)
        return digits.withUnsafeBufferPointer { magnitude(digits: $0) }
    }

    /// Exact powers of ten as `Double`s.
    private static let powersOfTen: [Double] = (0...22).map { pow(10, Double($0)) }

    /// The number node's value as the nearest `Double`, or `nil` if it is beyond `Double`'s range
    /// (such as `1e400`). A value too small for a `Double` becomes zero, or the nearest subnormal.
    @inline(__always)
    func double(_ node: Node) -> Double? {
        let text = buffer(of: node)
        // When the digits fit 2^53 and the power of ten is at most 10^22, both are exact
        // `Double`s, and one multiplication or division rounds correctly (Clinger's fast path).
        var index = 0
        let negative = text[0] == UInt8(ascii: "-")
        if negative { index = 1 }
        var mantissa: UInt64 = 0
        var digitCount = 0
        var fractionDigits = 0
        var inFraction = false
        var exponent = 0
        fast: do {
            while index < text.count {
                let byte = text[index]
                if byte == UInt8(ascii: ".") {
                    inFraction = true
                } else if byte | 0x20 == UInt8(ascii: "e") {
                    break
                } else {
                    if mantissa != 0 || byte != UInt8(ascii: "0") { digitCount += 1 }
                    guard digitCount <= 15 else { break fast }
                    mantissa = mantissa * 10 + UInt64(byte &- UInt8(ascii: "0"))
                    if inFraction { fractionDigits += 1 }
                }
                index += 1
            }
            if index < text.count {
                index += 1
                var exponentNegative = false
                if text[index] == UInt8(ascii: "-") || text[index] == UInt8(ascii: "+") {
                    exponentNegative = text[index] == UInt8(ascii: "-")
                    index += 1
                }
                guard text.count - index <= 4 else { break fast }
                while index < text.count {
                    exponent = exponent * 10 + Int(text[index] &- UInt8(ascii: "0"))
                    index += 1
                }
                if exponentNegative { exponent = -exponent }
            }
            let power = exponent - fractionDigits
            var value = Double(mantissa)
            if mantissa == 0 {
                value = 0
            } else if power >= 0, power <= 22 {
                value *= Self.powersOfTen[power]
            } else if power < 0, power >= -22 {
                value /= Self.powersOfTen[-power]
            } else {
                break fast
            }
            return negative ? -value : value
        }
        guard let value = Double(String(decoding: text, as: UTF8.self)), value.isFinite else { return nil }
        return value
    }

    /// The number node's value as the nearest `Float`, or `nil` if it is beyond `Float`'s range.
    func float(_ node: Node) -> Float? {
        // Through a `Double` the value would be rounded twice; small integers are exact either way.
        if node.isInteger, node.length <= 7, let integer = integer(node, as: Int32.self) { return Float(integer) }
        guard let value = Float(String(decoding: buffer(of: node), as: UTF8.self)), value.isFinite else { return nil }
        return value
    }

    /// The number node's value as a `Decimal`, or `nil` if `Decimal` cannot hold it.
    func decimal(_ node: Node) -> Decimal? {
        Decimal(string: numberText(node), locale: Locale(identifier: "en_US_POSIX"))
    }
}
