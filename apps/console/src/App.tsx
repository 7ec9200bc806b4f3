import { AppShell, Button, Center, Group, Loader, NavLink, Text, Title } from '@mantine/core';
import { Link, Route, Switch, useLocation } from 'wouter';
import { AccountPage } from './pages/AccountPage';
import { AccountsPage } from './pages/AccountsPage';
import { AuditPage } from './pages/AuditPage';
import { InboundPage } from './pages/InboundPage';
import { SettingsPage } from './pages/SettingsPage';
import { TokensPage } from './pages/TokensPage';
import { BatchesPage } from './pages/BatchesPage';
import { ConnectorsPage } from './pages/ConnectorsPage';
import { LoginPage } from './pages/LoginPage';
import { MessagePage } from './pages/MessagePage';
import { MessagesPage } from './pages/MessagesPage';
import { OverviewPage } from './pages/OverviewPage';
import { RoutesPage } from './pages/RoutesPage';
import { useSession } from './session';

/** The pages of the session's kind; an operator sees those its token's scopes allow. */
function Navigation({ operator, scopes }: { operator: boolean; scopes: readonly string[] }) {
  const [location] = useLocation();
  const item = (href: string, label: string) => (
    <NavLink
      component={Link}
      href={href}
      label={label}
      active={href === '/' ? location === '/' : location.startsWith(href)}
    />
  );
  return (
    <nav aria-label="Console">
      {item('/', operator ? 'Overview' : 'Balance and test message')}
      {item('/messages', 'Messages')}
      {(!operator || scopes.includes('batches:read')) && item('/batches', 'Batches')}
      {operator && scopes.includes('accounts:read') && item('/accounts', 'Accounts')}
      {operator && scopes.includes('connectors') && item('/connectors', 'Connectors')}
      {operator &&
        (scopes.includes('routes') || scopes.includes('inbound')) &&
        item('/routes', 'Routes')}
      {!operator && item('/inbound', 'Inbound messages')}
      {!operator && item('/settings', 'Settings')}
      {operator && scopes.includes('audit:read') && item('/audit', 'Audit trail')}
      {operator && scopes.includes('tokens') && item('/tokens', 'Admin tokens')}
    </nav>
  );
}

export function App() {
  const { session, logout } = useSession();
  if (session === undefined)
    return (
      <Center h="100vh">
        <Loader aria-label="Loading" />
      </Center>
    );
  if (session === null) return <LoginPage />;
  const operator = session.kind === 'operator';
  return (
    <AppShell header={{ height: 56 }} navbar={{ width: 240, breakpoint: 'sm' }} padding="md">
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between">
          <Title order={1} size="h3">
            sms-gateway
          </Title>
          <Group>
            <Text size="sm">
              {operator ? 'Operator' : 'Customer'} <strong>{session.name}</strong>
            </Text>
            <Button variant="default" size="xs" onClick={() => void logout()}>
              Log out
            </Button>
          </Group>
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="xs">
        <Navigation operator={operator} scopes={session.scopes} />
      </AppShell.Navbar>
      <AppShell.Main>
        <Switch>
          <Route path="/" component={OverviewPage} />
          <Route path="/messages" component={MessagesPage} />
          <Route path="/messages/:id">{(p) => <MessagePage id={p.id} />}</Route>
          <Route path="/accounts" component={AccountsPage} />
          <Route path="/accounts/:username">{(p) => <AccountPage username={p.username} />}</Route>
          <Route path="/audit" component={AuditPage} />
          <Route path="/inbound" component={InboundPage} />
          <Route path="/settings" component={SettingsPage} />
          <Route path="/tokens" component={TokensPage} />
          <Route path="/batches" component={BatchesPage} />
          <Route path="/connectors" component={ConnectorsPage} />
          <Route path="/routes" component={RoutesPage} />
          <Route>
            <Text>No such page.</Text>
          </Route>
        </Switch>
      </AppShell.Main>
    </AppShell>
  );
}
