using PerfLab.Counters;

namespace PerfLab.Tests.Counters;

public sealed class CounterFilesTests
{
    private static readonly CounterRecording _recording = new()
    {
        ProcessId = 42,
        ProcessName = "dotnet",
        RuntimeVersion = "10.0.12",
        IntervalSeconds = 1,
        StartedUnixMs = 1_700_000_000_000,
        EndedUnixMs = 1_700_000_002_500,
        Ending = CollectionEnding.Cancelled,
        Counters =
        [
            new("working-set", "Working Set", "MB", CounterKind.Gauge, CounterSource.Meter, "System.Runtime"),
            new("requests-per-second", "Request Rate", "count", CounterKind.Rate, CounterSource.EventCounters, "Microsoft.AspNetCore.Hosting"),
        ],
        Samples =
        [
            new(1_700_000_000, new Dictionary<string, double> { ["working-set"] = 70.1234567 }),
            new(1_700_000_001, new Dictionary<string, double> { ["working-set"] = 71.5, ["requests-per-second"] = 1234 }),
        ],
        Adjustments = [new(1_700_000_001_200, "Starvation", 5, 3.5)],
    };

    [Fact]
    public void ToCsv_Recording_OneRowPerSecondWithEmptyCellsForMissingValues()
    {
        Assert.Equal(
            "unix_seconds,utc,working-set,requests-per-second\n" +
            "1700000000,2023-11-14T22:13:20Z,70.123,\n" +
            "1700000001,2023-11-14T22:13:21Z,71.5,1234\n",
            CounterFiles.ToCsv(_recording));
    }

    [Fact]
    public async Task WriteAsync_Json_RoundTripsWithEnumsAsWords()
    {
        var path = Path.Combine(Path.GetTempPath(), $"perflab-counters-{Guid.NewGuid():N}.json");
        try
        {
            await CounterFiles.WriteAsync(_recording, path, CounterFileFormat.Json);
            var text = await File.ReadAllTextAsync(path);
            Assert.Contains("\"ending\": \"Cancelled\"", text);
            Assert.Contains("\"source\": \"Meter\"", text);
            var back = CounterFiles.ReadJson(path);
            Assert.Equal(_recording.Samples[1].Values, back.Samples[1].Values);
            Assert.Equal(_recording.Adjustments, back.Adjustments);
            Assert.Equal(_recording.Counters, back.Counters);
        }
        finally
        {
            File.Delete(path);
        }
    }

    [Theory]
    [InlineData("a.json", CounterFileFormat.Json)]
    [InlineData("dir/b.CSV", CounterFileFormat.Csv)]
    [InlineData("c.txt", null)]
    public void FormatFromExtension_Path_ChoosesTheWriter(string path, CounterFileFormat? expected) =>
        Assert.Equal(expected, CounterFiles.FormatFromExtension(path));
}
