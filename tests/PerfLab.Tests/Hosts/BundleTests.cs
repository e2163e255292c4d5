using System.Diagnostics;
using PerfLab.Hosts;

namespace PerfLab.Tests.Hosts;

/// <summary>
/// What a bundle copies to a host: perflab's build without the publish/ folder a `dotnet pack` of perflab leaves inside
/// it (a pack once changed that folder, and so perflab's hash, under a hosts test's feet), by its hash and by real tar.
/// </summary>
public sealed class BundleTests : IDisposable
{
    private readonly string _root = Directory.CreateTempSubdirectory("perflab-bundle-").FullName;

    private string Write(string folder, string relative, string text)
    {
        var path = Path.Combine(_root, folder, relative);
        Directory.CreateDirectory(Path.GetDirectoryName(path)!);
        File.WriteAllText(path, text);
        return path;
    }

    [Fact]
    public async Task Bundle_PublishFolderAtItsRoot_LeftOutOfItsHashSizeAndTarButNotDeeperOnes()
    {
        foreach (var folder in new[] { "with", "without" })
        {
            Write(folder, "perflab.dll", "perflab");
            Write(folder, "sub/b.txt", "b");
            Write(folder, "sub/publish/kept.txt", "a folder of that name deeper down is perflab's");
        }
        Write("with", "publish/perflab.dll", "a published copy, 65 MB in a real pack");
        var with = Bundle.Of("perflab", [(Path.Combine(_root, "with"), "")], "publish");
        var without = Bundle.Of("perflab", [(Path.Combine(_root, "without"), "")]);

        Assert.Equal(without.Hash, with.Hash);
        Assert.Equal(without.Bytes, with.Bytes);
        Assert.NotEqual(without.Hash, Bundle.Of("perflab", [(Path.Combine(_root, "with"), "")]).Hash);

        var archive = Path.Combine(_root, "bundle.tar.gz");
        var tar = new ProcessStartInfo("tar") { RedirectStandardOutput = true, UseShellExecute = false };
        foreach (var argument in Deployment.TarArguments(with))
        {
            tar.ArgumentList.Add(argument);
        }
        using (var process = Process.Start(tar)!)
        await using (var file = File.Create(archive))
        {
            await process.StandardOutput.BaseStream.CopyToAsync(file);
            await process.WaitForExitAsync();
            Assert.Equal(0, process.ExitCode);
        }
        var list = await PerfLab.Common.ProcessRunner.RunAsync("tar", ["-tzf", archive], null, TimeSpan.FromSeconds(30), CancellationToken.None);
        var members = list.Output.Split('\n', StringSplitOptions.RemoveEmptyEntries).Where(m => !m.EndsWith('/')).Order().ToList();
        Assert.Equal(["./perflab.dll", "./sub/b.txt", "./sub/publish/kept.txt"], members);
    }

    public void Dispose() => Directory.Delete(_root, recursive: true);
}
