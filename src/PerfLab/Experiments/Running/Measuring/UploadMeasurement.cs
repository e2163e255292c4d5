using PerfLab.Apps;
using PerfLab.Common;
using PerfLab.Load;
using PerfLab.Results;

namespace PerfLab.Experiments.Running.Measuring;

/// <summary>Seed 002's uploads (see <see cref="UploadRun"/>), timed one by one, with the runtime's counters alongside.</summary>
/// <param name="scenario">The scenario's name in the results.</param>
/// <param name="model">The uploads as the profile runs them (count and size filled in).</param>
/// <param name="cap">The most one upload may take (the profile's duration).</param>
public sealed class UploadMeasurement(string scenario, UploadModel model, TimeSpan cap) : IMeasurement
{
    public async Task<RunRecord> MeasureAsync(IRunningApp sut, RunIdentity id, IReadOnlyDictionary<string, string> info,
        CancellationToken ct)
    {
        var ((outcome, failure), recording) = await CounterSession.WithCountersAsync(sut, async () =>
        {
            try
            {
                return (await UploadRun.RunAsync(sut, model, cap, ct),
                    (string?)null);
            }
            catch (OperationCanceledException) when (ct.IsCancellationRequested)
            {
                return ((UploadRun.Outcome?)null, null);
            }
            catch (Exception ex) when (ex is PerfLabException or HttpRequestException or OperationCanceledException or IOException)
            {
                return ((UploadRun.Outcome?)null,
                    ex is OperationCanceledException ? $"an upload took longer than {DurationText.Format(cap)}" : ex.Message);
            }
        }, ct);
        if (outcome is null && failure is null)
        {
            return RunRecordBuilder.Failed(id, new RunFailure(FailureKind.Interrupted, "interrupted (Ctrl+C)", null, info));
        }
        if (outcome is null)
        {
            return RunRecordBuilder.Failed(id,
                new RunFailure(FailureKind.UploadFailed, $"the upload failed: {failure}", sut.TailOfLog(), info));
        }
        return RunRecordBuilder.FromUpload(id, info, scenario, outcome, recording);
    }
}
