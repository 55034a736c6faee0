#if Metrics
// The swift-metrics integration: MetricsFetchMonitor (next commit).
#endif
