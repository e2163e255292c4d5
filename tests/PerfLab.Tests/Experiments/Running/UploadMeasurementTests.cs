using PerfLab.Apps;
using PerfLab.Experiments.Running;
using PerfLab.Load;
using PerfLab.Results;
using PerfLab.SutProcesses;
using PerfLab.Experiments.Running.Measuring;

namespace PerfLab.Tests.Experiments.Running;

/// <summary>The upload measurement against a real SUT speaking HTTP/2, through the real latency proxy.</summary>
public sealed class UploadMeasurementTests
{
    private static readonly TimeSpan Rtt = TimeSpan.FromMilliseconds(20);

    private static Task<IRunningApp> StartHttp2SutAsync() => StartAsync(new SutLaunch(
        new Dictionary<string, string> { ["Kestrel:EndpointDefaults:Protocols"] = "Http2" }, new Dictionary<string, string>(), null));

    // The built-in SUT as the runner starts it: an app under test.
    private static Task<IRunningApp> StartAsync(SutLaunch launch) => new BuiltInSut(file => launch with { LogFile = file })
        .StartAsync(Path.Combine(Path.GetTempPath(), "perflab-tests", $"sut-{Guid.NewGuid():N}.log"), null, CancellationToken.None);

    [Fact]
    public async Task MeasureAsync_SmallUploads_RecordsOneTimePerUploadAndTheRttItMeasured()
    {
        await using var sut = await StartHttp2SutAsync();
        var upload = new UploadModel(256 * 1024, Rtt, Uploads: 4);
        var id = new RunIdentity("window", 1, 1, DateTimeOffset.UtcNow);

        var record = await new UploadMeasurement("upload", upload, TimeSpan.FromSeconds(60)).MeasureAsync(sut, id, new Dictionary<string, string>(), CancellationToken.None);

        Assert.True(record.Status == RunStatus.Ok, record.FailureReason);
        Assert.Equal(4, record.BatchTimesMs.Count); // the warming upload is not measured
        // Each upload needs at least one round trip through the proxy (the request and the answer).
        Assert.All(record.BatchTimesMs, ms => Assert.InRange(ms, Rtt.TotalMilliseconds, 10_000));
        Assert.Equal(20, record.ConfiguredRttMs);
        Assert.InRange(record.MeasuredRttMs!.Value, 18, 50);
        var stats = Assert.Single(record.Scenarios);
        Assert.Equal(("upload", 4L), (stats.Scenario, stats.Requests));
        Assert.Equal(record.BatchTimesMs.Average(), stats.MeanMs, 0.01);
        Assert.True(stats.Rps > 0);
    }

    [Fact]
    public async Task MeasureAsync_SutNotSpeakingHttp2_FailsWithTheUploadKind()
    {
        await using var sut = await StartAsync(SutLaunch.Default(connectionString: null));
        var upload = new UploadModel(1024, Rtt, Uploads: 1);

        var record = await new UploadMeasurement("upload", upload, TimeSpan.FromSeconds(10)).MeasureAsync(sut, new RunIdentity("w", 1, 1, DateTimeOffset.UtcNow),
            new Dictionary<string, string>(), CancellationToken.None);

        Assert.Equal((RunStatus.Failed, FailureKind.UploadFailed), (record.Status, record.FailureKind));
        Assert.StartsWith("the upload failed:", record.FailureReason);
    }
}
