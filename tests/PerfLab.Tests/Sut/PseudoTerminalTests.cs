using System.Text;
using PerfLab.SutProcesses;

namespace PerfLab.Tests.Sut;

public sealed class PseudoTerminalTests : IDisposable
{
    private readonly string _transcript = Path.Combine(Path.GetTempPath(), "perflab-tests", $"pty-{Guid.NewGuid():N}.log");

    public PseudoTerminalTests() => Directory.CreateDirectory(Path.GetDirectoryName(_transcript)!);

    [Fact]
    public void Write_KnownBytes_TranscriptHoldsWhatATerminalShowsAndCountsTheKernelsBytes()
    {
        using (var terminal = PseudoTerminal.Open(_transcript))
        {
            Assert.StartsWith("/dev/pts/", terminal.SlavePath, StringComparison.Ordinal);
            using var slave = new FileStream(terminal.SlavePath, FileMode.Open, FileAccess.Write, FileShare.ReadWrite, bufferSize: 0);
            // An escape sequence split across two writes, as a reader may meet it split across two reads.
            foreach (var part in new[] { "one\ntwo\n\u001b[3", "2mgreen\u001b[39m\n", "\u001b[?1h\u001b=last\n" })
            {
                slave.Write(Encoding.ASCII.GetBytes(part));
            }
        }
        Assert.Equal("one\ntwo\ngreen\nlast\n", File.ReadAllText(_transcript));
    }

    [Fact]
    public void Write_FourLines_CountsFourLinesAndTheCarriageReturnsTheTerminalAdded()
    {
        const string text = "one\ntwo\nthree\nfour\n";
        long lines, bytes;
        using (var terminal = PseudoTerminal.Open(_transcript))
        {
            using (var slave = new FileStream(terminal.SlavePath, FileMode.Open, FileAccess.Write, FileShare.ReadWrite, bufferSize: 0))
            {
                slave.Write(Encoding.ASCII.GetBytes(text));
            }
            terminal.Dispose();
            (lines, bytes) = (terminal.LinesRead, terminal.BytesRead);
        }
        Assert.Equal(4, lines);
        // The slave's default ONLCR turns each \n into \r\n on the way to the master: a real terminal line discipline.
        Assert.Equal(text.Length + 4, bytes);
    }

    [Fact]
    public async Task Write_FarMoreThanTheTtyBuffer_NeverBlocksForGoodAndEveryLineArrives()
    {
        const int count = 20_000;
        var line = Encoding.ASCII.GetBytes(new string('x', 99) + "\n");
        long read;
        using (var terminal = PseudoTerminal.Open(_transcript))
        {
            var writer = Task.Run(() =>
            {
                using var slave = new FileStream(terminal.SlavePath, FileMode.Open, FileAccess.Write, FileShare.ReadWrite, bufferSize: 0);
                for (var i = 0; i < count; i++)
                {
                    slave.Write(line);
                }
            });
            // 2 MB through a tty buffer of a few KB: only a reader that keeps draining lets the writer finish.
            Assert.Same(writer, await Task.WhenAny(writer, Task.Delay(TimeSpan.FromSeconds(60))));
            await writer;
            terminal.Dispose();
            read = terminal.LinesRead;
        }
        Assert.Equal(count, read);
        Assert.Equal(count, File.ReadLines(_transcript).Count(l => l.Length == 99));
    }

    public void Dispose() => File.Delete(_transcript);
}
