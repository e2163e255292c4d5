using System.Net;
using System.Net.Sockets;
using PerfLab.Common;

namespace PerfLab.Tests.Database;

// Each fault: one clear message, its exit code, and no half-created data folder left behind.
[System.Runtime.Versioning.UnsupportedOSPlatform("windows")]
public sealed class DbFaultTests
{
    [Fact]
    public async Task DbStart_BinDirWithoutPostgres_NamesThePackageAndCreatesNothing()
    {
        using var folder = new TempFolder();
        var emptyBin = Directory.CreateDirectory(Path.Combine(folder.Path, "bin")).FullName;
        var dataDir = Path.Combine(folder.Path, "pg");

        var result = await PerfLabProcess.RunAsync(
            new Dictionary<string, string> { ["PERFLAB_PG_BINDIR"] = emptyBin }, "db", "start", "--data-dir", dataDir);

        Assert.Equal((int)ExitCode.Environment, result.ExitCode);
        Assert.Contains("apt-get install postgresql", result.Stderr);
        Assert.Contains(emptyBin, result.Stderr);
        Assert.DoesNotContain("   at ", result.Stderr);
        Assert.False(Directory.Exists(dataDir));
    }

    [Fact]
    public async Task DbStart_PortInUse_SaysSoAndCreatesNothing()
    {
        using var folder = new TempFolder();
        var dataDir = Path.Combine(folder.Path, "pg");
        using var squatter = new TcpListener(IPAddress.Loopback, 0);
        squatter.Start();
        var port = ((IPEndPoint)squatter.LocalEndpoint).Port;

        var result = await PerfLabProcess.RunAsync("db", "start", "--data-dir", dataDir, "--port",
            port.ToString(System.Globalization.CultureInfo.InvariantCulture));

        Assert.Equal((int)ExitCode.Environment, result.ExitCode);
        Assert.Contains($"port {port} on 127.0.0.1", result.Stderr);
        Assert.Contains("in use", result.Stderr);
        Assert.False(Directory.Exists(dataDir));
    }

    [Fact]
    public async Task DbStart_DataFolderCannotBeCreated_SaysWhichFolder()
    {
        // A path below a regular file cannot be created, even by root (a read-only parent would not stop root).
        using var folder = new TempFolder();
        var file = Path.Combine(folder.Path, "not-a-folder");
        await File.WriteAllTextAsync(file, "");
        var dataDir = Path.Combine(file, "pg");

        var result = await PerfLabProcess.RunAsync("db", "start", "--data-dir", dataDir);

        Assert.Equal((int)ExitCode.Environment, result.ExitCode);
        Assert.Contains($"cannot create or write the data folder {dataDir}", result.Stderr);
        Assert.DoesNotContain("   at ", result.Stderr);
    }

    [Fact]
    public async Task DbStart_InitdbFails_RemovesTheDataFolderItCreated()
    {
        using var folder = new TempFolder();
        var bin = Directory.CreateDirectory(Path.Combine(folder.Path, "bin")).FullName;
        // A stand-in initdb that leaves a file behind and fails, as a real one does on a full disk.
        WriteScript(Path.Combine(bin, "initdb"), """
            #!/bin/sh
            while [ $# -gt 0 ]; do [ "$1" = "-D" ] && dir="$2"; shift; done
            echo partial > "$dir/PG_VERSION.partial"
            echo "initdb: error: could not write to file: No space left on device" >&2
            exit 1
            """);
        WriteScript(Path.Combine(bin, "pg_ctl"), "#!/bin/sh\nexit 1\n");
        WriteScript(Path.Combine(bin, "postgres"), "#!/bin/sh\nexit 1\n");
        var dataDir = Path.Combine(folder.Path, "new", "pg");

        var result = await PerfLabProcess.RunAsync(
            new Dictionary<string, string> { ["PERFLAB_PG_BINDIR"] = bin }, "db", "start", "--data-dir", dataDir);

        Assert.Equal((int)ExitCode.Environment, result.ExitCode);
        Assert.Contains("initdb failed", result.Stderr);
        Assert.Contains("No space left on device", result.Stderr);
        Assert.False(Directory.Exists(dataDir));
        Assert.False(Directory.Exists(Path.Combine(folder.Path, "new")));
    }

    [Fact]
    public async Task DbSeed_ClusterNotRunning_TellsToStartIt()
    {
        using var folder = new TempFolder();

        var result = await PerfLabProcess.RunAsync("db", "seed", "--data-dir", Path.Combine(folder.Path, "pg"));

        Assert.Equal((int)ExitCode.Unreachable, result.ExitCode);
        Assert.Contains("perflab db start", result.Stderr);
    }

    [Fact]
    public async Task DbStatus_ExternalServerUnreachable_ReportsItWithExitCode()
    {
        using var closed = new TcpListener(IPAddress.Loopback, 0);
        closed.Start();
        var port = ((IPEndPoint)closed.LocalEndpoint).Port;
        closed.Stop();

        var result = await PerfLabProcess.RunAsync("db", "status", "--connection-string",
            $"Host=127.0.0.1;Port={port};Timeout=3");

        Assert.Equal((int)ExitCode.Unreachable, result.ExitCode);
        Assert.Contains("external, unreachable", result.Stdout);
    }

    [Fact]
    public async Task DbStart_PortOutOfRange_IsAUsageError()
    {
        var result = await PerfLabProcess.RunAsync("db", "start", "--port", "70000");

        Assert.Equal((int)ExitCode.Usage, result.ExitCode);
        Assert.Contains("--port must be between 1 and 65535", result.Stderr);
    }

    private static void WriteScript(string path, string text)
    {
        File.WriteAllText(path, text.ReplaceLineEndings("\n"));
        File.SetUnixFileMode(path, UnixFileMode.UserRead | UnixFileMode.UserWrite | UnixFileMode.UserExecute
            | UnixFileMode.GroupRead | UnixFileMode.GroupExecute | UnixFileMode.OtherRead | UnixFileMode.OtherExecute);
    }
}
