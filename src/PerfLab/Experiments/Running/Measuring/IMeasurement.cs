using PerfLab.Apps;
using PerfLab.Results;

namespace PerfLab.Experiments.Running.Measuring;

/// <summary>
/// One way of measuring a variant on its running app, chosen per experiment at run time (Blocks' Measurements.For): the
/// load engine (<see cref="LoadMeasurement"/>), uploads included, or a capacity search (CapacityMeasurement).
/// A failure is returned as a failed record with its kind, never thrown.
/// </summary>
public interface IMeasurement
{
    Task<RunRecord> MeasureAsync(IRunningApp sut, RunIdentity id, IReadOnlyDictionary<string, string> info, CancellationToken ct);
}
