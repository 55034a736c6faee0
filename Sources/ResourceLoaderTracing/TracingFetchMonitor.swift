#if Tracing
// The swift-distributed-tracing integration: TracingFetchMonitor (next commit).
#endif
