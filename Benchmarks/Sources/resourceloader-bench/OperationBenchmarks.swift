import Foundation
import ResourceLoader

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A transport that answers every request at once, on the calling thread, with the same
/// response: what is left is the cost of the operation machinery and the parse.
final class ImmediateSession: URLSessionType {
    let body: Data
    let response: HTTPURLResponse

    init(body: Data, url: URL) {
        self.body = body
        response = HTTPURLResponse(url: url, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: nil)!
    }

    func data(
        for request: URLRequest,
        options: TransferOptions,
        completionHandler: @escaping @Sendable (Result<(Data, URLResponse), any Error>) -> Void
    ) -> any Cancellable {
        completionHandler(.success((body, response)))
        return NothingToCancel()
    }
}

private final class NothingToCancel: Cancellable, Sendable {
    func cancel() {}
}

/// Counts the operations that produced the expected model.
final class OutcomeCounter: @unchecked Sendable {
    // `lock` guards `count`.
    private let lock = NSLock()
    private var count = 0

    func add() {
        lock.lock()
        count += 1
        lock.unlock()
    }

    var value: Int {
        lock.lock()
        defer { lock.unlock() }
        return count
    }
}

enum OperationContender: String, CaseIterable {
    case blockOperation = "BlockOperation (same work by hand)"
    case resourceOperation = "ResourceOperation"

    var key: String {
        switch self {
        case .blockOperation: "blockoperation"
        case .resourceOperation: "resourceoperation"
        }
    }

    /// Runs `count` operations on a fresh queue and returns how many produced the model.
    func run(count: Int, body: Data) -> Int {
        let url = URL(string: "http://127.0.0.1/cities/europe.json")!
        let session = ImmediateSession(body: body, url: url)
        let queue = OperationQueue()
        let outcomes = OutcomeCounter()
        var operations: [Operation] = []
        operations.reserveCapacity(count)
        switch self {
        case .blockOperation:
            // The same steps ResourceService takes, written inline: build the request, "send" it,
            // check the status, decode, hand the model over.
            for _ in 0..<count {
                operations.append(BlockOperation {
                    let resource = CityList(url: url)
                    guard let request = try? resource.urlRequest() else { return }
                    _ = session.data(for: request, options: TransferOptions()) { answer in
                        guard case .success(let (data, response)) = answer,
                            let response = response as? HTTPURLResponse, (200..<300).contains(response.statusCode),
                            let root = try? JSONDecoder().decode(CitiesRoot.self, from: data),
                            !root.cities.isEmpty
                        else { return }
                        outcomes.add()
                    }
                })
            }
        case .resourceOperation:
            let service = ResourceService<CityList>(session: session)
            let callbackQueue = DispatchQueue(label: "bench.operations", attributes: .concurrent)
            for _ in 0..<count {
                operations.append(ResourceOperation(resource: CityList(url: url), service: service, callbackQueue: callbackQueue) { _, result in
                    if case .success(let cities) = result, !cities.isEmpty { outcomes.add() }
                })
            }
        }
        queue.addOperations(operations, waitUntilFinished: true)
        return outcomes.value
    }
}
