import { Button, Group, Progress, Stack, Table, Text, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';

import type { BatchSearchResult, BatchSummary } from '@smsgw/contracts';
import { OPEN_BATCH_STATES } from '@smsgw/contracts/plain';
import { Failure, Pager, useCursorPages } from '../parts';
import { api } from '../api';
import { useLoggedIn } from '../session';

/** A batch a cancel can stop. */
const CANCELLABLE = new Set<string>(OPEN_BATCH_STATES);

/** Cancels an open batch: a customer's own through /secure/, an operator's through the admin API. */
function CancelBatch({ batch, prefix }: { batch: BatchSummary; prefix: string }) {
  const client = useQueryClient();
  const cancel = useMutation({
    mutationFn: () =>
      api<unknown>('DELETE', `${prefix}/batches/${encodeURIComponent(batch.batchId)}`),
    onSuccess: () => void client.invalidateQueries({ queryKey: ['batches'] }),
  });
  return (
    <Group gap="xs">
      <Button
        size="xs"
        variant="default"
        loading={cancel.isPending}
        onClick={() => cancel.mutate()}
      >
        Cancel
      </Button>
      {cancel.error && (
        <Text size="xs" c="red" role="alert">
          {cancel.error.message}
        </Text>
      )}
    </Group>
  );
}

/**
 * Batches, newest first, with their progress: a customer's own, or every account's; an open one
 * can be cancelled (by an operator with accounts:write).
 */
export function BatchesPage() {
  const session = useLoggedIn();
  const operator = session.kind === 'operator';
  const prefix = operator ? '/admin/v1' : '/secure';
  const canCancel = !operator || session.scopes.includes('accounts:write');
  const pages = useCursorPages();
  const next = pages.cursor;
  const list = useQuery({
    queryKey: ['batches', prefix, next],
    queryFn: () =>
      api<BatchSearchResult>(
        'GET',
        `${prefix}/batches${next ? `?next=${encodeURIComponent(next)}` : ''}`,
      ),
    refetchInterval: 5000,
  });
  const page = list.data?.data;
  return (
    <Stack>
      <Title order={1} size="h2">
        Batches
      </Title>
      <Failure error={list.error} />
      {page && (
        <Text size="sm">
          Created from {page.since} to {page.until}, newest first
        </Text>
      )}
      <Table striped aria-label="Batches">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Created</Table.Th>
            {operator && <Table.Th>Account</Table.Th>}
            <Table.Th>State</Table.Th>
            <Table.Th>Messages</Table.Th>
            <Table.Th>Progress</Table.Th>
            <Table.Th>Cost</Table.Th>
            {canCancel && <Table.Th>Action</Table.Th>}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {page?.batches.map((b) => (
            <Table.Tr key={b.batchId}>
              <Table.Td>{b.createdAt}</Table.Td>
              {operator && <Table.Td>{b.account}</Table.Td>}
              <Table.Td>{b.state}</Table.Td>
              <Table.Td>
                {b.expanded} of {b.total}
              </Table.Td>
              <Table.Td w={160}>
                <Progress
                  value={b.total === 0 ? 0 : (100 * b.expanded) / b.total}
                  aria-label={`Batch ${b.batchId}: ${b.expanded} of ${b.total} messages made`}
                />
              </Table.Td>
              <Table.Td>{b.cost}</Table.Td>
              {canCancel && (
                <Table.Td>
                  {CANCELLABLE.has(b.state) && <CancelBatch batch={b} prefix={prefix} />}
                </Table.Td>
              )}
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      {page?.batches.length === 0 && <Text>No batch in this range.</Text>}
      <Pager pages={pages} nextCursor={page?.next} />
    </Stack>
  );
}
