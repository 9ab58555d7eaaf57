import { joinDoneText } from '../../../../src/phases/join/closing.js';

test('the closing text names the etcd member only for stacked etcd', () => {
  expect(joinDoneText(false, false)).toContain('This node has joined the cluster:\n* Certificate signing request was sent to apiserver and a response was received.');
  expect(joinDoneText(true, true)).toContain('* A new etcd member was added to the local/stacked etcd cluster.');
  expect(joinDoneText(true, false)).not.toContain('etcd member');
});
