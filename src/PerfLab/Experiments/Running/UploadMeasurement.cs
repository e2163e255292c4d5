using PerfLab.Apps;
using PerfLab.Common;
using PerfLab.Experiments.Definitions;
using PerfLab.Results;

namespace PerfLab.Experiments.Running;

/// <summary>Seed 002's uploads (see <see cref="UploadRun"/>), timed one by one, with the runtime's counters alongside.</summary>
public sealed class UploadMeasurement(ScenarioDefinition upload, ProfileDefinition profile) : IMeasurement
{
    public async Task<RunRecord> MeasureAsync(IRunningApp sut, RunIdentity id, IReadOnlyDictionary<string, string> info, CancellationToken ct)
    {
        var ((outcome, failure), recording) = await CounterSession.WithCountersAsync(sut.Pid, async () =>
        {
            try
            {
                return (await UploadRun.RunAsync(sut, profile.UploadBytes ?? upload.UploadBytes, upload.Rtt, profile.Batches, profile.Duration, ct),
                    (string?)null);
            }
            catch (OperationCanceledException) when (ct.IsCancellationRequested)
            {
                return ((UploadRun.Outcome?)null, null);
            }
            catch (Exception ex) when (ex is PerfLabException or HttpRequestException or OperationCanceledException or IOException)
            {
                return ((UploadRun.Outcome?)null,
                    ex is OperationCanceledException ? $"an upload took longer than {DurationText.Format(profile.Duration)}" : ex.Message);
            }
        }, ct);
        if (outcome is null && failure is null)
        {
            return RunRecordBuilder.Failed(id, new RunFailure(FailureKind.Interrupted, "interrupted (Ctrl+C)", null, info));
        }
        if (outcome is null)
        {
            return RunRecordBuilder.Failed(id, new RunFailure(FailureKind.UploadFailed, $"the upload failed: {failure}", sut.TailOfLog(), info));
        }
        return RunRecordBuilder.FromUpload(id, info, upload.Name, outcome, recording);
    }
}
