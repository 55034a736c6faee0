#if AsyncHTTPClient
import AsyncHTTPClient
import Foundation
import ResourceLoader
import Tracing

extension AsyncHTTPClientTransport {
    /// The tracer a client the transport makes traces with: the configuration's, whose spans
    /// record URLs as `LoggingFetchMonitor.redacted(_:)` writes them.
    ///
    /// AsyncHTTPClient sets `url.full` (without user and password only) and `url.query` from the
    /// URL as sent, query values and fragment included, on spans that are children of the
    /// fetch's; the fetch's own span redacts them. An error AsyncHTTPClient records is recorded
    /// without header field values (see ``RedactingSpan``). Every other attribute, event and
    /// status goes to the configuration's tracer as it is.
    struct QueryRedactingTracer: Tracer {
        /// The configuration's tracer.
        let wrapped: any Tracer

        func startSpan<Instant: TracerInstant>(
            _ operationName: String,
            context: @autoclosure () -> ServiceContext,
            ofKind kind: SpanKind,
            at instant: @autoclosure () -> Instant,
            function: String,
            file fileID: String,
            line: UInt
        ) -> RedactingSpan {
            RedactingSpan(
                wrapped: wrapped.startSpan(
                    operationName, context: context(), ofKind: kind, at: instant(), function: function, file: fileID, line: line))
        }

        @available(*, deprecated)
        func forceFlush() {
            wrapped.forceFlush()
        }

        func extract<Carrier, Extract: Extractor>(_ carrier: Carrier, into context: inout ServiceContext, using extractor: Extract)
        where Extract.Carrier == Carrier {
            wrapped.extract(carrier, into: &context, using: extractor)
        }

        func inject<Carrier, Inject: Injector>(_ context: ServiceContext, into carrier: inout Carrier, using injector: Inject)
        where Inject.Carrier == Carrier {
            wrapped.inject(context, into: &carrier, using: injector)
        }
    }

    /// A span of ``QueryRedactingTracer``: the configuration tracer's, with `url.full` and
    /// `url.query` redacted as they are set, and AsyncHTTPClient's refusal of header field values
    /// recorded without them.
    ///
    /// AsyncHTTPClient refuses a value with a control character other than tab, which a fetch
    /// refuses before any transport, with `HTTPClientError.invalidHeaderFieldValues(_:)`, whose
    /// description prints the values: the span records that error with one `REDACTED` in place
    /// of the values, so that a credential handed to the transport directly never reaches the
    /// tracer. Every other error is recorded as it is: none of AsyncHTTPClient's or SwiftNIO's
    /// carries a request's header field value.
    struct RedactingSpan: Span {
        /// The configuration tracer's span.
        let wrapped: any Span

        var context: ServiceContext { wrapped.context }

        var operationName: String {
            get { wrapped.operationName }
            nonmutating set { wrapped.operationName = newValue }
        }

        var attributes: SpanAttributes {
            get { wrapped.attributes }
            nonmutating set { wrapped.attributes = Self.redacting(newValue) }
        }

        var isRecording: Bool { wrapped.isRecording }

        func setStatus(_ status: SpanStatus) { wrapped.setStatus(status) }

        func addEvent(_ event: SpanEvent) { wrapped.addEvent(event) }

        func recordError<Instant: TracerInstant>(_ error: any Error, attributes: SpanAttributes, at instant: @autoclosure () -> Instant) {
            wrapped.recordError(Self.redacting(error), attributes: attributes, at: instant())
        }

        /// `error` without the header field values it prints: AsyncHTTPClient's
        /// `invalidHeaderFieldValues` with one `REDACTED` in their place; any other error as it is.
        static func redacting(_ error: any Error) -> any Error {
            guard let error = error as? HTTPClientError,
                  error.shortDescription == HTTPClientError.invalidHeaderFieldValues([]).shortDescription else { return error }
            return HTTPClientError.invalidHeaderFieldValues(["REDACTED"])
        }

        func addLink(_ link: SpanLink) { wrapped.addLink(link) }

        func end<Instant: TracerInstant>(at instant: @autoclosure () -> Instant) { wrapped.end(at: instant()) }

        /// `attributes` with its `url.full` and `url.query` redacted.
        static func redacting(_ attributes: SpanAttributes) -> SpanAttributes {
            var attributes = attributes
            if case .string(let text)? = attributes.get("url.full") {
                attributes["url.full"] = URL(string: text).map(LoggingFetchMonitor.redacted) ?? "(unreadable URL)"
            }
            if case .string(let query)? = attributes.get("url.query") {
                attributes["url.query"] = redacted(query: query)
            }
            return attributes
        }

        /// `query` with every value replaced, as `LoggingFetchMonitor.redacted(_:)`
        /// replaces them in a URL.
        static func redacted(query: String) -> String {
            guard let url = URL(string: "http://h/?" + query) else { return LoggingFetchMonitor.redactedValue }
            let text = LoggingFetchMonitor.redacted(url)
            guard let mark = text.firstIndex(of: "?") else { return "" }
            return String(text[text.index(after: mark)...])
        }
    }
}
#endif
