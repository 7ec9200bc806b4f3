import { Button, Group, Stack, Table, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import type { MoRouteList, MoRouteView, MtRouteView } from '@smsgw/contracts';
import { api } from '../api';
import { ConfirmDelete, EditDelete, Failure } from '../parts';
import { useLoggedIn } from '../session';
import { MoRouteForm, MtRouteForm } from './RouteForms';
import { MoRouteTester, MtRouteTester } from './RouteTesters';

/** A route's filters in a few words. */
function filtersText(filters: Record<string, unknown>): string {
  const parts = Object.entries(filters).map(([k, v]) =>
    Array.isArray(v)
      ? `${k}: ${v.join(', ')}`
      : `${k}: ${typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? String(v) : JSON.stringify(v)}`,
  );
  return parts.length === 0 ? 'every message' : parts.join('; ');
}

function MtRoutes() {
  const [editing, setEditing] = useState<MtRouteView | 'new' | undefined>();
  const [deleting, setDeleting] = useState<string | undefined>();
  const list = useQuery({
    queryKey: ['routes'],
    queryFn: () => api<{ data: MtRouteView[] }>('GET', '/admin/v1/routes'),
  });
  const routes = list.data?.data ?? [];
  return (
    <Stack component="section" aria-labelledby="mt-routes">
      <Group justify="space-between">
        <Title order={2} size="h3" id="mt-routes">
          MT routes (messages sent)
        </Title>
        <Button onClick={() => setEditing('new')}>Add an MT route</Button>
      </Group>
      <Text size="sm">
        Tried in the order of their position; the first whose filters all match takes the message.
        {list.data &&
          routes.length === 0 &&
          ' With no routes, every message goes to the default connector.'}
      </Text>
      <Failure error={list.error} />
      {routes.length > 0 && (
        <Table striped aria-label="MT routes">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Position</Table.Th>
              <Table.Th>Name</Table.Th>
              <Table.Th>Connectors</Table.Th>
              <Table.Th>Filters</Table.Th>
              <Table.Th>Price</Table.Th>
              <Table.Th>Action</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {routes.map((r) => (
              <Table.Tr key={r.name}>
                <Table.Td>{r.position}</Table.Td>
                <Table.Td>{r.name}</Table.Td>
                <Table.Td>
                  {r.kind}:{' '}
                  {r.connectors
                    .map((c) =>
                      c.weight === undefined ? c.connector : `${c.connector} (${c.weight})`,
                    )
                    .join(', ')}
                </Table.Td>
                <Table.Td>{filtersText(r.filters)}</Table.Td>
                <Table.Td>{r.price ?? "account's rate"}</Table.Td>
                <Table.Td>
                  <EditDelete
                    name={r.name}
                    onEdit={() => setEditing(r)}
                    onDelete={() => setDeleting(r.name)}
                  />
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
      <MtRouteTester />
      <MtRouteForm editing={editing} onClose={() => setEditing(undefined)} />
      <ConfirmDelete
        thing="MT route"
        name={deleting}
        what="Its messages go to the next route that matches them, or are refused when none does."
        path={(name) => `/admin/v1/routes/${encodeURIComponent(name)}`}
        refresh={['routes']}
        onClose={() => setDeleting(undefined)}
      />
    </Stack>
  );
}

function MoRoutes() {
  const [editing, setEditing] = useState<MoRouteView | 'new' | undefined>();
  const [deleting, setDeleting] = useState<string | undefined>();
  const list = useQuery({
    queryKey: ['mo-routes'],
    queryFn: () => api<MoRouteList>('GET', '/admin/v1/mo-routes'),
  });
  const routes = list.data?.data ?? [];
  return (
    <Stack component="section" aria-labelledby="mo-routes">
      <Group justify="space-between">
        <Title order={2} size="h3" id="mo-routes">
          MO routes (messages received)
        </Title>
        <Button onClick={() => setEditing('new')}>Add an MO route</Button>
      </Group>
      <Failure error={list.error} />
      {list.data && routes.length === 0 && (
        <Text size="sm">No MO routes: inbound messages are kept as unrouted.</Text>
      )}
      {routes.length > 0 && (
        <Table striped aria-label="MO routes">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Position</Table.Th>
              <Table.Th>Name</Table.Th>
              <Table.Th>To</Table.Th>
              <Table.Th>Keyword</Table.Th>
              <Table.Th>Connector</Table.Th>
              <Table.Th>Account</Table.Th>
              <Table.Th>Delivered to</Table.Th>
              <Table.Th>Action</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {routes.map((r) => (
              <Table.Tr key={r.name}>
                <Table.Td>{r.position}</Table.Td>
                <Table.Td>{r.name}</Table.Td>
                <Table.Td>{r.to === null ? 'any' : `${r.to}${r.exact ? '' : '…'}`}</Table.Td>
                <Table.Td>{r.keyword ?? 'any'}</Table.Td>
                <Table.Td>{r.any_connector ? 'any' : r.connector}</Table.Td>
                <Table.Td>{r.account}</Table.Td>
                <Table.Td>
                  {[r.webhook_url && `${r.webhook_format} ${r.webhook_url}`, r.smpp && 'SMPP']
                    .filter(Boolean)
                    .join(', ') || 'kept for the account'}
                </Table.Td>
                <Table.Td>
                  <EditDelete
                    name={r.name}
                    onEdit={() => setEditing(r)}
                    onDelete={() => setDeleting(r.name)}
                  />
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
      <MoRouteTester />
      <MoRouteForm editing={editing} onClose={() => setEditing(undefined)} />
      <ConfirmDelete
        thing="MO route"
        name={deleting}
        what="The messages it took go to the next route that matches them, or are kept as unrouted."
        path={(name) => `/admin/v1/mo-routes/${encodeURIComponent(name)}`}
        refresh={['mo-routes']}
        onClose={() => setDeleting(undefined)}
      />
    </Stack>
  );
}

/** The MT and MO routes: listed, edited, deleted, and asked which would take a message. */
export function RoutesPage() {
  const session = useLoggedIn();
  return (
    <Stack gap="xl">
      <Title order={1} size="h2">
        Routes
      </Title>
      {session.scopes.includes('routes') && <MtRoutes />}
      {session.scopes.includes('inbound') && <MoRoutes />}
    </Stack>
  );
}
