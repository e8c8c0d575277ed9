using System.Text;
using Tern.Client.Exceptions;
using Tern.Client.Operations;
using Tern.Client.Protocol;

namespace Tern.Client.Tests.Operations;

public class RequestBufferTests
{
    [Fact]
    public void PutsTheWireKeyAfterTheExtrasAndExposesTheLogicalKey()
    {
        var request = new RequestBuffer();
        request.Begin("héllo", 8, [1, 2, 3, 4]);
        request.Finish(Opcode.Get, Datatype.Raw, 0);

        var frame = request.Written;
        var keyBytes = Encoding.UTF8.GetBytes("héllo");
        Assert.Equal(FrameHeader.Size + 4 + 1 + keyBytes.Length, frame.Length);
        Assert.Equal([1, 2, 3, 4], frame.Slice(FrameHeader.Size, 4).ToArray());
        Assert.Equal(8, frame[FrameHeader.Size + 4]);
        Assert.Equal(keyBytes, request.LogicalKey.ToArray());
        Assert.Equal(1 + keyBytes.Length, frame[3]); // key length counts the prefix
    }

    [Fact]
    public void AKeyTooLongLeavesNothingOfThePreviousRequestToSend()
    {
        // A pooled operation reuses its buffer: a rejected key must not leave the last request in it.
        var request = new RequestBuffer();
        request.Begin("previous", null, [0, 0, 0, 0]);
        request.Finish(Opcode.Set, Datatype.Raw, 0);
        Assert.Equal(FrameHeader.Size + 4 + "previous".Length, request.Written.Length);

        Assert.Throws<InvalidArgumentException>(() => request.Begin(new string('k', 249) + "é", null, [0, 0, 0, 0]));

        Assert.Equal(0, request.Written.Length);
    }

    [Fact]
    public void AnEmptyKeyIsRejectedInsteadOfSentAndDropsThePreviousRequest()
    {
        var request = new RequestBuffer();
        request.Begin("previous", null, []);

        var error = Assert.Throws<InvalidArgumentException>(() => request.Begin("", null, [0, 0, 0, 0]));

        Assert.Contains("must not be empty", error.Message);
        Assert.Equal(0, request.Written.Length);
    }
}
