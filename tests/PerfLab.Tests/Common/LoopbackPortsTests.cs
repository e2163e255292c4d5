using System.Net;
using System.Net.Sockets;
using PerfLab.Common;

namespace PerfLab.Tests.Common;

public class LoopbackPortsTests
{
    [Fact]
    public void PickFree_IsBelowTheEphemeralRangeAndBindable()
    {
        var (low, _) = LoopbackPorts.EphemeralRange();
        for (var i = 0; i < 20; i++)
        {
            var port = LoopbackPorts.PickFree();
            Assert.InRange(port, 10000, low - 1);
            using var listener = new TcpListener(IPAddress.Loopback, port);
            listener.Start();
        }
    }

    [Fact]
    public void IsFree_APortWithAListener_False()
    {
        using var listener = new TcpListener(IPAddress.Loopback, 0);
        listener.Start();
        var port = ((IPEndPoint)listener.LocalEndpoint).Port;

        Assert.False(LoopbackPorts.IsFree(port));
    }

    // An outgoing connection's local port makes the same port unbindable for a listener: the race that a port taken
    // from the ephemeral range lost in CI (a test's client took PostgreSQL's port between the pick and the bind).
    [Fact]
    public async Task IsFree_APortHeldByAnOutgoingConnection_False()
    {
        using var server = new TcpListener(IPAddress.Loopback, 0);
        server.Start();
        using var client = new TcpClient();
        await client.ConnectAsync(IPAddress.Loopback, ((IPEndPoint)server.LocalEndpoint).Port);
        var localPort = ((IPEndPoint)client.Client.LocalEndPoint!).Port;
        var (low, high) = LoopbackPorts.EphemeralRange();

        Assert.InRange(localPort, low, high);
        Assert.False(LoopbackPorts.IsFree(localPort));
    }

    [Theory]
    [InlineData("32768\t60999\n", 32768, 60999)]
    [InlineData("1024 65000", 1024, 65000)]
    public void ParseRange_KernelFormat(string text, int low, int high) =>
        Assert.Equal((low, high), LoopbackPorts.ParseRange(text));

    [Fact]
    public void ParseRange_Garbage_FormatException() =>
        Assert.Throws<FormatException>(() => LoopbackPorts.ParseRange("32768"));
}
